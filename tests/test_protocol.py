"""Named cases for the tool-call protocol check and its repair (quirks 1, 2, 12, 16, 17)."""

from __future__ import annotations

import pytest

import messages
from messages import (
    MISSING_RESULT,
    AIMessage,
    DuplicateToolCallIdError,
    EmptyConversationError,
    MessageTypeError,
    OrphanToolResultError,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UnansweredToolCallError,
    UserMessage,
    dump_messages,
    is_synthesized_result,
    protocol_errors,
    repair_conversation,
    validate_conversation,
)


def call(call_id: str, name: str = "f") -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments="{}")


def result(call_id: str, content: str = "ok") -> ToolMessage:
    return ToolMessage(tool_call_id=call_id, content=content)


def calls(*ids: str) -> AIMessage:
    return AIMessage(tool_calls=[call(i) for i in ids])


USER = UserMessage(content="hi")


def test_valid_parallel_exchange_in_any_result_order_passes():
    validate_conversation([USER, calls("a", "b"), result("b"), result("a"), AIMessage(content="done")])


def test_empty_conversation_is_rejected():
    # quirk 12: "Invalid 'messages': empty array".
    with pytest.raises(EmptyConversationError, match="empty"):
        validate_conversation([])


def test_orphan_result_after_a_user_message():
    # quirk 2: "messages with role 'tool' must be a response to a preceding message with
    # 'tool_calls'" (LangChain #33245: a last-n trim that starts with a tool message).
    with pytest.raises(OrphanToolResultError) as info:
        validate_conversation([USER, result("x")])
    assert info.value.index == 1
    assert info.value.tool_call_ids == ("x",)
    assert "message 1 is a tool result for 'x' after a user message" in str(info.value)


def test_orphan_result_at_the_start():
    with pytest.raises(OrphanToolResultError, match="'x' at the start"):
        validate_conversation([result("x"), USER])


def test_result_for_a_call_of_another_turn_is_an_orphan():
    conversation = [USER, calls("a"), result("a"), USER, calls("b"), result("a")]
    errors = protocol_errors(conversation)
    assert [type(e) for e in errors] == [OrphanToolResultError, UnansweredToolCallError]
    assert "(message 4) made no call with that id (it called 'b')" in str(errors[0])


def test_unanswered_call_before_a_user_message():
    # quirk 1: "An assistant message with 'tool_calls' must be followed by tool messages
    # responding to each 'tool_call_id'".
    with pytest.raises(UnansweredToolCallError) as info:
        validate_conversation([USER, calls("a", "b"), result("a"), USER])
    assert info.value.index == 1
    assert info.value.tool_call_ids == ("b",)
    assert (
        "message 1 (assistant) calls 'b' but no tool result answers it before message 3 (a user message)"
        in (str(info.value))
    )


def test_unanswered_calls_at_the_end():
    with pytest.raises(
        UnansweredToolCallError, match="'a', 'b' but no tool result answers them before the end"
    ):
        validate_conversation([USER, calls("a", "b")])


def test_an_id_repeated_within_one_turn_is_an_error():
    # OpenAI pairs results with calls by id: two calls of one turn with one id cannot both be answered.
    with pytest.raises(DuplicateToolCallIdError) as info:
        validate_conversation([USER, calls("a", "b", "a"), result("a"), result("b"), result("a")])
    assert info.value.index == 1
    assert "reuses tool-call id 'a' in tool_calls[2], already used by tool_calls[0] earlier in the same" in (
        str(info.value)
    )


def kimi_turn(*names: str) -> AIMessage:
    """An assistant turn as Kimi K2 writes it: ids ``functions.NAME:INDEX``, minted again every turn."""
    return AIMessage(tool_calls=[call(f"functions.{name}:{n}", name) for n, name in enumerate(names)])


def test_ids_are_scoped_to_their_turn():
    # Kimi K2 reuses functions.NAME:0 in every turn, local servers call_0; OpenAI accepts it, since each
    # result answers the nearest call before it with its id.
    kimi = [
        USER,
        kimi_turn("search"),
        result("functions.search:0", "first"),
        kimi_turn("search", "fetch"),
        result("functions.search:0", "second"),
        result("functions.fetch:1", "page"),
        UserMessage(content="and again"),
        kimi_turn("search"),
        result("functions.search:0", "third"),
    ]
    local = [
        USER,
        calls("call_0"),
        result("call_0"),
        calls("call_0"),
        result("call_0"),
        AIMessage(content="ok"),
    ]
    for conversation in (kimi, local):
        validate_conversation(conversation)
        assert protocol_errors(conversation) == []
        assert repair_conversation(conversation) == conversation  # valid ids are not renamed
        assert len(dump_messages(conversation)) == len(conversation)


def test_a_result_answers_only_the_turn_it_follows_even_when_an_earlier_turn_used_its_id():
    # The earlier call "a" was answered; the later turn calls "b", so a result "a" after it is an orphan
    # (not a second answer to the first turn's call).
    conversation = [USER, calls("a"), result("a"), calls("b"), result("b"), result("a", "stray")]
    errors = protocol_errors(conversation)
    assert [(type(e), e.index) for e in errors] == [(OrphanToolResultError, 5)]
    assert repair_conversation(conversation) == conversation[:5]


def test_second_answer_to_one_call():
    with pytest.raises(DuplicateToolCallIdError, match="answers tool call 'a' a second time"):
        validate_conversation([USER, calls("a"), result("a"), result("a", "again")])


def test_protocol_errors_lists_every_problem_in_order():
    conversation = [result("x"), USER, calls("a"), USER, calls("b", "b"), result("b"), result("b")]
    errors = protocol_errors(conversation)
    assert [(type(e), e.index) for e in errors] == [
        (OrphanToolResultError, 0),
        (UnansweredToolCallError, 2),
        (DuplicateToolCallIdError, 4),
        (DuplicateToolCallIdError, 6),
    ]


def test_dump_messages_validates_by_default_and_can_skip_it():
    broken = [USER, calls("a")]
    with pytest.raises(UnansweredToolCallError):
        dump_messages(broken)
    assert len(dump_messages(broken, validate=False)) == 2


def test_repair_synthesizes_missing_results_after_the_turns_own_results():
    # An interrupted run: the second call never returned before the user spoke again.
    conversation = [SystemMessage(content="s"), USER, calls("a", "b"), result("a"), USER]
    repaired = repair_conversation(conversation)
    validate_conversation(repaired)
    assert repaired[:4] == conversation[:4]
    assert repaired[4] == ToolMessage(tool_call_id="b", content=MISSING_RESULT)
    assert is_synthesized_result(repaired[4])
    assert not is_synthesized_result(repaired[3])
    assert repaired[5] == USER


def test_repair_drops_orphans_and_second_answers_only():
    conversation = [result("x"), USER, calls("a"), result("a"), result("a", "again"), result("zz"), USER]
    assert repair_conversation(conversation) == [USER, calls("a"), result("a"), USER]


def test_repair_keeps_an_id_a_later_turn_uses_again():
    conversation = [USER, calls("a"), result("a", "first"), USER, calls("a"), result("a", "second")]
    assert repair_conversation(conversation) == conversation


def test_repair_pairs_results_with_repeated_ids_in_one_turn_by_position():
    conversation = [USER, calls("a", "a"), result("a", "one"), result("a", "two")]
    repaired = repair_conversation(conversation)
    validate_conversation(repaired)
    assert [c.id for c in repaired[1].tool_calls] == ["a", "a_2"]  # type: ignore[union-attr]
    assert repaired[2:] == [result("a", "one"), result("a_2", "two")]


def test_repair_of_a_valid_conversation_changes_nothing():
    conversation = [USER, calls("a", "b"), result("b"), result("a"), AIMessage(content="done")]
    assert repair_conversation(conversation) == conversation


def test_repair_of_nothing_is_an_error():
    with pytest.raises(EmptyConversationError):
        repair_conversation([])


def test_repair_moves_a_result_separated_from_its_call_back_to_it():
    # A user message injected between a call and its result (a bot that filed the user's next message
    # before the tool returned): the result is the tool's real output, so it is kept, not replaced by a
    # synthesized "not completed" result.
    conversation = [USER, calls("a", "b"), result("a"), UserMessage(content="later"), result("b", "late")]
    repaired = repair_conversation(conversation)
    assert repaired == [USER, calls("a", "b"), result("a"), result("b", "late"), UserMessage(content="later")]
    assert not any(is_synthesized_result(m) for m in repaired)


def test_repair_can_drop_a_late_result_instead_of_moving_it():
    # The strict repair: the late result is dropped like an orphan, its call gets a synthesized result, and
    # every other message keeps its place.
    conversation = [USER, calls("a", "b"), result("a"), UserMessage(content="later"), result("b", "late")]
    repaired = repair_conversation(conversation, late_results="drop")
    assert repaired == [
        USER,
        calls("a", "b"),
        result("a"),
        ToolMessage(tool_call_id="b", content=MISSING_RESULT),
        UserMessage(content="later"),
    ]


def test_repair_drops_a_result_filed_after_the_next_turn_only_when_told_to():
    conversation = [USER, calls("a"), USER, calls("b"), result("a", "late"), result("b")]
    assert repair_conversation(conversation) == [
        USER,
        calls("a"),
        result("a", "late"),
        USER,
        calls("b"),
        result("b"),
    ]
    assert repair_conversation(conversation, late_results="drop") == [
        USER,
        calls("a"),
        ToolMessage(tool_call_id="a", content=MISSING_RESULT),
        USER,
        calls("b"),
        result("b"),
    ]


def test_repair_rejects_an_unknown_late_results_mode():
    with pytest.raises(ValueError, match='late_results must be "move" or "drop"; got \'keep\''):
        repair_conversation([USER], late_results="keep")  # type: ignore[arg-type]


def test_the_synthesized_result_helpers_are_public():
    assert messages.MISSING_RESULT is messages.protocol.MISSING_RESULT
    assert messages.is_synthesized_result is messages.protocol.is_synthesized_result
    assert {"MISSING_RESULT", "is_synthesized_result"} <= set(messages.__all__)


# Each error says where (the message index), what (the ids), and how to fix it: the fix clause is part of
# the contract, so that a user reading only the message knows what to do.
FIX_CASES = [
    ([USER, result("x")], OrphanToolResultError, 1, ("x",), "drop it, or use repair_conversation()"),
    (
        [USER, calls("b"), result("b"), result("a")],
        OrphanToolResultError,
        3,
        ("a",),
        "drop it, or use repair_conversation()",
    ),
    (
        [USER, calls("a", "b"), result("a"), USER],
        UnansweredToolCallError,
        1,
        ("b",),
        "add ToolMessage.for_call(call, result) for each right after the call, or use repair_conversation()",
    ),
    (
        [USER, calls("a"), result("a"), calls("b", "b"), result("b"), result("b")],
        DuplicateToolCallIdError,
        3,
        ("b",),
        "give each call its own id, or use repair_conversation()",
    ),
    (
        [USER, calls("a"), result("a"), result("a", "again")],
        DuplicateToolCallIdError,
        3,
        ("a",),
        "keep one result per call: drop the second, or use repair_conversation()",
    ),
]


@pytest.mark.parametrize(("conversation", "kind", "index", "ids", "fix"), FIX_CASES)
def test_every_protocol_error_names_the_index_the_ids_and_the_fix(conversation, kind, index, ids, fix):
    with pytest.raises(kind) as info:
        validate_conversation(conversation)
    text = str(info.value)
    assert info.value.index == index
    assert info.value.tool_call_ids == ids
    assert f"message {index}" in text
    assert all(repr(i) in text for i in ids)
    assert fix in text


def test_empty_conversation_errors_name_the_fix():
    with pytest.raises(EmptyConversationError, match="add at least one message"):
        validate_conversation([])
    with pytest.raises(EmptyConversationError, match="add at least one message"):
        repair_conversation([])
    with pytest.raises(EmptyConversationError, match="start it with the user message"):
        repair_conversation([result("x")])


def test_repair_gives_a_late_result_to_the_earliest_open_call_with_its_id():
    # Two turns use the id "a" and neither was answered in place: the late results pair with the calls in
    # the order they were made, and both turns keep the id (it is scoped to its turn).
    conversation = [USER, calls("a"), USER, calls("a"), USER, result("a", "one"), result("a", "two")]
    repaired = repair_conversation(conversation)
    validate_conversation(repaired)
    assert repaired == [
        USER,
        calls("a"),
        result("a", "one"),
        USER,
        calls("a"),
        result("a", "two"),
        USER,
    ]


def test_repair_drops_a_result_that_comes_before_its_call():
    conversation = [USER, result("a", "too early"), calls("a")]
    assert repair_conversation(conversation) == [
        USER,
        calls("a"),
        ToolMessage(tool_call_id="a", content=MISSING_RESULT),
    ]


def test_repair_of_only_orphan_results_is_an_error_not_an_empty_list():
    # An empty list would not validate (quirk 12); say so instead of returning it.
    with pytest.raises(EmptyConversationError, match=r"2 tool result\(s\) that answer no call"):
        repair_conversation([result("x"), result("y")])


def test_repair_rejects_items_that_are_not_messages():
    with pytest.raises(MessageTypeError, match="message 1 is a dict"):
        repair_conversation([USER, {"role": "user", "content": "hi"}])  # type: ignore[list-item]
