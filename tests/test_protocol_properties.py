"""Properties of the protocol check and its repair over generated conversations, valid and broken.

The reference predicate and the reference pairing of results with calls below are written from the rules
(quirks 1, 2, 12, 16, 17), segment by segment, not from the implementation's state machine.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from messages import (
    AIMessage,
    ConversationError,
    DuplicateToolCallIdError,
    EmptyConversationError,
    Message,
    OrphanToolResultError,
    ToolMessage,
    UnansweredToolCallError,
    is_synthesized_result,
    protocol_errors,
    repair_conversation,
    validate_conversation,
)
from messages import strategies as ms
from messages.protocol import validated_call_ids

# Light conversations: the properties are about structure, not content, and generation dominates the time.
BROKEN = ms.broken_conversations(max_turns=6, max_parallel_calls=3, extensions=False)
ANY = st.one_of(ms.conversations(max_turns=6, max_parallel_calls=3, extensions=False), BROKEN)


def segments(conversation: Sequence[Message]) -> list[list[Message]]:
    """Each message that is not a tool result, with the tool results right after it; a leading run of
    tool results is a segment of its own."""
    out: list[list[Message]] = []
    for message in conversation:
        if isinstance(message, ToolMessage) and out:
            out[-1].append(message)
        else:
            out.append([message])
    return out


def reference_valid(conversation: Sequence[Message]) -> bool:
    """The protocol, said once: not empty; every segment's tool results answer exactly the calls of the
    message it starts with (none for a message without calls), each once; no id used by two calls of one
    turn (ids are scoped to their turn: a later turn may use one again)."""
    if not conversation:
        return False
    for head, *results in segments(conversation):
        if isinstance(head, ToolMessage):
            return False
        calls = [c.id for c in head.tool_calls] if isinstance(head, AIMessage) else []
        if len(set(calls)) != len(calls):
            return False
        if sorted(r.tool_call_id for r in results if isinstance(r, ToolMessage)) != sorted(calls):
            return False
    return True


def answering_results(conversation: Sequence[Message]) -> list[ToolMessage]:
    """The tool results that answered a real call: each result answers the oldest call with its id made
    before it that no earlier result answered; a result with no such call answered nothing."""
    open_calls: Counter[str] = Counter()
    answering = []
    for message in conversation:
        if isinstance(message, AIMessage):
            open_calls.update(c.id for c in message.tool_calls)
        elif isinstance(message, ToolMessage) and open_calls[message.tool_call_id] > 0:
            open_calls[message.tool_call_id] -= 1
            answering.append(message)
    return answering


def in_place_results(conversation: Sequence[Message]) -> set[int]:
    """The positions of the tool results that answered a call of the assistant turn they directly follow
    (only tool results in between): each answers the first call of that turn with its id that no earlier
    result answered."""
    answering: set[int] = set()
    open_calls: Counter[str] = Counter()
    for index, message in enumerate(conversation):
        if not isinstance(message, ToolMessage):
            calls = message.tool_calls if isinstance(message, AIMessage) else []
            open_calls = Counter(c.id for c in calls)
        elif open_calls[message.tool_call_id] > 0:
            open_calls[message.tool_call_id] -= 1
            answering.add(index)
    return answering


def reused_calls(conversation: Sequence[Message]) -> set[tuple[int, int]]:
    """(message index, call position) of every call whose id an earlier call of the same turn used."""
    reused = set()
    for index, message in enumerate(conversation):
        if isinstance(message, AIMessage):
            seen: set[str] = set()
            for position, call in enumerate(message.tool_calls):
                if call.id in seen:
                    reused.add((index, position))
                seen.add(call.id)
    return reused


def without_ids(message: Message) -> str:
    """A message without its tool-call ids (which repair may rename), to compare what else it holds."""
    data = message.model_dump()
    data.pop("tool_call_id", None)
    for call in data.get("tool_calls", ()):
        call.pop("id")
    return json.dumps(data, sort_keys=True)


def result_key(message: ToolMessage) -> str:
    """A tool result without its id (which repair may rename): content, name."""
    return message.model_dump_json(exclude={"tool_call_id"})


def test_every_breakage_can_break_a_conversation():
    # A guard for the properties below: a strategy that stopped breaking things would make them vacuous.
    for kind in ms.BREAKAGES:
        found = find(
            ms.broken_conversations(kinds=[kind], max_breaks=1, extensions=False),
            lambda c: not reference_valid(c),
            settings=settings(max_examples=500, database=None, phases=[Phase.generate]),  # no shrinking
        )
        assert not reference_valid(found), kind


def test_broken_conversations_rejects_unknown_kinds():
    with pytest.raises(ValueError, match="kinds must be a non-empty selection"):
        ms.broken_conversations(kinds=["scramble"])  # type: ignore[list-item]


@given(ANY)
def test_validate_accepts_exactly_the_protocol_valid_conversations(conversation):
    valid = reference_valid(conversation)
    errors = protocol_errors(conversation)
    assert (errors == []) == valid
    if valid:
        validate_conversation(conversation)
        return
    with pytest.raises(ConversationError) as info:
        validate_conversation(conversation)
    assert type(info.value) is type(errors[0])
    assert str(info.value) == str(errors[0])
    # Every error names a real position, and ids that the message there holds.
    for error in errors:
        if isinstance(error, EmptyConversationError):
            assert conversation == []
            continue
        assert error.index is not None
        assert f"message {error.index}" in str(error)
        message = conversation[error.index]
        assert error.tool_call_ids
        for call_id in error.tool_call_ids:
            assert repr(call_id) in str(error)
        if isinstance(error, OrphanToolResultError):
            assert isinstance(message, ToolMessage)
            assert error.tool_call_ids == (message.tool_call_id,)
        elif isinstance(error, UnansweredToolCallError):
            assert isinstance(message, AIMessage)
            assert set(error.tool_call_ids) <= {c.id for c in message.tool_calls}
        else:
            assert isinstance(error, DuplicateToolCallIdError)
            ids = (
                {message.tool_call_id}
                if isinstance(message, ToolMessage)
                else {c.id for c in message.tool_calls}  # type: ignore[union-attr]
            )
            assert set(error.tool_call_ids) <= ids


@given(ANY)
def test_the_call_ids_the_check_gathers_are_every_call_and_every_result_answers_one(conversation):
    # dump_messages(model=...) hands these ids to the profile's id rule instead of gathering them again
    # (ToolCallIds.idle): so they must be exactly the calls' ids, and cover every result's id.
    if not reference_valid(conversation):
        with pytest.raises(ConversationError) as info:
            validated_call_ids(conversation)
        assert str(info.value) == str(protocol_errors(conversation)[0])
        return
    call_ids = validated_call_ids(conversation)
    assert call_ids == [c.id for m in conversation if isinstance(m, AIMessage) for c in m.tool_calls]
    assert {m.tool_call_id for m in conversation if isinstance(m, ToolMessage)} <= set(call_ids)


@pytest.mark.parametrize("late", ["move", "drop"])
@given(conversation=ANY)
def test_repair_output_validates_and_repair_is_idempotent_deterministic_and_pure(late, conversation):
    if all(isinstance(m, ToolMessage) for m in conversation):  # includes []: nothing to send
        with pytest.raises(EmptyConversationError):
            repair_conversation(conversation, late_results=late)
        return
    snapshot = [m.model_copy(deep=True) for m in conversation]
    repaired = repair_conversation(conversation, late_results=late)
    validate_conversation(repaired)
    assert reference_valid(repaired)
    assert conversation == snapshot  # the input is untouched
    assert repair_conversation(list(conversation), late_results=late) == repaired
    assert repair_conversation(repaired, late_results=late) == repaired
    if reference_valid(conversation):
        assert repaired == conversation


def _with_ids(message: AIMessage, ids: list[str]) -> AIMessage:
    calls = [c.model_copy(update={"id": i}) for c, i in zip(message.tool_calls, ids, strict=True)]
    return message.model_copy(update={"tool_calls": calls})


@pytest.mark.parametrize("late", ["move", "drop"])
@given(conversation=ANY)
def test_repair_keeps_every_other_message_changing_only_the_ids_of_reused_calls(late, conversation):
    # The one exception to "every non-tool message is kept unchanged", in either mode: a call whose id an
    # earlier call of its turn already used is renamed to "<id>_<n>", and nothing else about its message
    # changes. An id used again in a later turn is kept.
    if all(isinstance(m, ToolMessage) for m in conversation):
        return
    repaired = repair_conversation(conversation, late_results=late)
    before = [(i, m) for i, m in enumerate(conversation) if not isinstance(m, ToolMessage)]
    after = [m for m in repaired if not isinstance(m, ToolMessage)]
    assert len(after) == len(before)
    reused = reused_calls(conversation)
    for (index, old), new in zip(before, after, strict=True):
        if not any(i == index for i, _ in reused):
            assert new == old
            continue
        assert isinstance(old, AIMessage)
        assert isinstance(new, AIMessage)
        assert _with_ids(new, [c.id for c in old.tool_calls]) == old
        for position, (old_call, new_call) in enumerate(zip(old.tool_calls, new.tool_calls, strict=True)):
            if (index, position) not in reused:
                assert new_call.id == old_call.id
                continue
            suffix = new_call.id.removeprefix(old_call.id + "_")
            assert suffix != new_call.id
            assert suffix.isdigit()
            assert int(suffix) >= 2


@given(ANY)
def test_repair_moving_late_results_loses_no_result_that_answered_a_real_call(conversation):
    if all(isinstance(m, ToolMessage) for m in conversation):
        return
    repaired = repair_conversation(conversation, late_results="move")
    kept = [m for m in repaired if isinstance(m, ToolMessage) and not is_synthesized_result(m)]
    assert Counter(map(result_key, kept)) == Counter(map(result_key, answering_results(conversation)))
    # Each call without a real answer got exactly one synthesized result (validation checks "exactly one").
    calls = sum(len(m.tool_calls) for m in repaired if isinstance(m, AIMessage))
    assert sum(is_synthesized_result(m) for m in repaired) == calls - len(kept)


@given(ANY)
def test_repair_dropping_late_results_only_drops_results_and_adds_synthesized_ones(conversation):
    # The strict contract: take the synthesized results out of the output, and what is left is the input
    # without the results that did not answer a call of the turn they follow (orphans, second answers, late
    # results), in the same order, each message as it was apart from renamed ids.
    if all(isinstance(m, ToolMessage) for m in conversation):
        return
    repaired = repair_conversation(conversation, late_results="drop")
    real = [m for m in repaired if not is_synthesized_result(m)]
    answering = in_place_results(conversation)
    expected = [m for i, m in enumerate(conversation) if not isinstance(m, ToolMessage) or i in answering]
    assert list(map(without_ids, real)) == list(map(without_ids, expected))
    calls = sum(len(m.tool_calls) for m in repaired if isinstance(m, AIMessage))
    assert sum(is_synthesized_result(m) for m in repaired) == calls - len(answering)
