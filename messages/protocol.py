"""The tool-call protocol, checked and repaired before any provider sees a conversation.

The rules every provider shares (quirks 1, 2, 12, 16, 17):

* the conversation is not empty;
* every call of an assistant turn is answered by exactly one tool result, and all the results of a turn
  come right after it: before the next message that is not a tool result (or the end);
* a tool result answers a call of the assistant turn it follows, with only tool results in between;
* a tool-call id is used by one call only within an assistant turn. Ids are scoped to their turn: a later
  turn may use an id again (Kimi K2 mints ``functions.NAME:0`` in every turn, local servers ``call_0``),
  as OpenAI allows, since a result answers the nearest call before it with its id: the call of the turn
  it follows. Providers that want every id once in a request (Anthropic, Bedrock: quirk 17) get new ids
  from their profile (``messages.profiles``), on the call and its result alike.

``validate_conversation`` raises the first problem it finds; ``protocol_errors`` lists them all, in the
order of the messages. ``repair_conversation`` returns a new list that passes:

* each call that no result answers gets a synthesized result (``MISSING_RESULT``, see
  ``is_synthesized_result``), placed after the turn's real results;
* results that answer no earlier call (the call was trimmed away, or the result came first), and second
  answers to a call already answered, are dropped;
* a *late* result, one that answers a call of an earlier assistant turn but comes after other messages (a
  user message injected between a call and its result, a result filed after the next turn), is handled as
  ``late_results`` says. ``"move"`` (the default) moves it back, right after its call's turn: its call
  exists, it is the tool's real output, and dropping it would lose a real result and tell the model the
  call never ran; when several earlier turns have an open call with its id, it goes to the earliest.
  ``"drop"`` drops it like an orphan (its call then gets a synthesized result): the strict repair, which
  only removes tool results, adds synthesized ones and renames ids repeated within a turn (below), and
  moves nothing;
* an id used twice within one assistant turn (quirk 17; OpenAI pairs results with calls by id, so two calls
  of one turn with one id cannot both be answered unambiguously) is renamed on its later occurrence: the
  call's ``id`` becomes ``"<id>_<n>"``, with the smallest ``n >= 2`` that no call of the input and no
  earlier renaming uses, and so does the ``tool_call_id`` of the result that answers that occurrence
  (results with the repeated id pair with its calls in order). Nothing else of the assistant message changes
  (its content, the calls' names and arguments, their order); the first occurrence keeps its id. No other
  repair keeps the protocol without losing content: leaving the id breaks the protocol, dropping the later
  call loses the model's call and its real result, and merging the two calls loses one of them. An id that a
  later turn uses again is valid, and is left as it is.

Nothing else changes: every system, user and assistant message is kept, in order, as it was (apart from
call ids repeated within a turn), and every kept result keeps its content. A list with nothing left to
send (empty, or only results that answer no call) raises ``EmptyConversationError``. All three are pure
and deterministic, and ``repair_conversation`` is idempotent: a valid conversation comes back unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from messages.errors import (
    ConversationError,
    DuplicateToolCallIdError,
    EmptyConversationError,
    MessageTypeError,
    OrphanToolResultError,
    UnansweredToolCallError,
)
from messages.models import AIMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage

__all__ = [
    "MISSING_RESULT",
    "LateResults",
    "is_synthesized_result",
    "protocol_errors",
    "repair_conversation",
    "validate_conversation",
]

MISSING_RESULT = (
    "Error: this tool call was not completed, so it has no result. Do not assume it ran; call it again "
    "if it is still needed."
)
"""The content of a tool result that ``repair_conversation`` synthesized for an unanswered call."""

LateResults = Literal["move", "drop"]
"""What ``repair_conversation`` does with a late result (the module docstring says which results are late)."""


_MESSAGE_TYPES = (SystemMessage, UserMessage, AIMessage, ToolMessage)


def is_synthesized_result(message: Message) -> bool:
    """Whether ``message`` is a tool result that ``repair_conversation`` made up for an unanswered call.

    A synthesized result is recognised by its content, ``MISSING_RESULT``, and by nothing else: a message
    is a value with only the fields it sends (ids and metadata belong to the thread store's envelope), so
    any other mark would either be sent to the provider or be lost when the message is stored, copied or
    loaded again. The text survives all of those; the limitation is that a real tool result whose content
    is exactly ``MISSING_RESULT`` is taken for a synthesized one.

    Args:
        message: any message.

    Returns:
        ``True`` for a result ``repair_conversation`` synthesized.

    Raises nothing.
    """
    return isinstance(message, ToolMessage) and message.content == MISSING_RESULT


@dataclass
class _Turn:
    """An assistant message with tool calls, and what has answered it so far."""

    index: int
    calls: tuple[str, ...]
    answered: dict[str, int] = field(default_factory=dict)

    def unanswered(self) -> tuple[str, ...]:
        return tuple(call_id for call_id in self.calls if call_id not in self.answered)


def _describe(message: Message) -> str:
    if isinstance(message, AIMessage):
        return "an assistant message with tool calls" if message.tool_calls else "an assistant message"
    return f"a {message.role} message"


def _unanswered_error(turn: _Turn, messages: Sequence[Message], next_index: int | None) -> ConversationError:
    missing = turn.unanswered()
    where = (
        "before the end of the conversation"
        if next_index is None
        else f"before message {next_index} ({_describe(messages[next_index])})"
    )
    ids = ", ".join(repr(call_id) for call_id in missing)
    return UnansweredToolCallError(
        f"message {turn.index} (assistant) calls {ids} but no tool result answers "
        f"{'it' if len(missing) == 1 else 'them'} {where}; add ToolMessage.for_call(call, result) for each "
        "right after the call, or use repair_conversation()",
        index=turn.index,
        tool_call_ids=missing,
    )


def _scan(messages: Sequence[Message]) -> Iterator[ConversationError]:
    if not messages:
        yield EmptyConversationError(
            'the conversation is empty; providers reject an empty messages array (OpenAI: "Invalid '
            "'messages': empty array\"): add at least one message",
        )
        return
    turn: _Turn | None = None
    previous: Message | None = None
    for index, message in enumerate(messages):
        if isinstance(message, ToolMessage):
            call_id = message.tool_call_id
            if turn is None:
                after = "at the start" if previous is None else f"after {_describe(previous)}"
                yield OrphanToolResultError(
                    f"message {index} is a tool result for {call_id!r} {after}, not after an assistant "
                    "message with tool_calls; OpenAI rejects it (\"messages with role 'tool' must be a "
                    "response to a preceding message with 'tool_calls'\"): drop it, or use "
                    "repair_conversation()",
                    index=index,
                    tool_call_ids=(call_id,),
                )
            elif call_id in turn.answered:
                yield DuplicateToolCallIdError(
                    f"message {index} answers tool call {call_id!r} a second time (message "
                    f"{turn.answered[call_id]} answered it first); keep one result per call: drop the "
                    "second, or use repair_conversation()",
                    index=index,
                    tool_call_ids=(call_id,),
                )
            elif call_id not in turn.calls:
                yield OrphanToolResultError(
                    f"message {index} is a tool result for {call_id!r}, but the assistant turn it follows "
                    f"(message {turn.index}) made no call with that id (it called "
                    f"{', '.join(repr(c) for c in turn.calls)}); drop it, or use repair_conversation()",
                    index=index,
                    tool_call_ids=(call_id,),
                )
            else:
                turn.answered[call_id] = index
            previous = message
            continue

        if turn is not None:
            if turn.unanswered():
                yield _unanswered_error(turn, messages, index)
            turn = None
        if isinstance(message, AIMessage) and message.tool_calls:
            ids: list[str] = []
            for position, call in enumerate(message.tool_calls):
                if call.id in ids:
                    yield DuplicateToolCallIdError(
                        f"message {index} reuses tool-call id {call.id!r} in tool_calls[{position}], already "
                        f"used by tool_calls[{ids.index(call.id)}] earlier in the same message; the calls of "
                        "one turn need distinct ids (a result answers its call by id): give each call its "
                        "own id, or use repair_conversation()",
                        index=index,
                        tool_call_ids=(call.id,),
                    )
                ids.append(call.id)
            turn = _Turn(index=index, calls=tuple(ids))
        previous = message
    if turn is not None and turn.unanswered():
        yield _unanswered_error(turn, messages, None)


def protocol_errors(messages: Sequence[Message]) -> list[ConversationError]:
    """Every protocol problem of ``messages``, in message order (empty when the conversation is valid).

    Args:
        messages: the conversation.

    Returns:
        The problems, each the ``ConversationError`` ``validate_conversation`` would raise for it.

    Raises:
        MessageTypeError: an item of ``messages`` is not a ``Message``.

    Examples:
        ```python
        from messages import AIMessage, ToolCall, UserMessage, protocol_errors

        call = ToolCall(id="call_1", name="weather", arguments={})
        broken = [UserMessage(content="Weather?"), AIMessage(tool_calls=[call]),
                  UserMessage(content="Hello?")]  # the call was never answered
        (problem,) = protocol_errors(broken)
        assert problem.index == 1 and "call_1" in str(problem)
        ```
    """
    if _is_valid(messages):
        return []
    check_types(messages)
    return list(_scan(messages))


def validate_conversation(messages: Sequence[Message]) -> None:
    """Raise the first protocol problem of ``messages`` as a ``ConversationError`` subclass.

    The error names the message index and the tool-call ids involved, and says how to fix it. An item
    that is not a message raises ``MessageTypeError``.

    Args:
        messages: the conversation.

    Raises:
        EmptyConversationError: there are no messages.
        OrphanToolResultError: a tool result answers no call made just before it.
        UnansweredToolCallError: a call has no result before the next non-tool message.
        DuplicateToolCallIdError: one id is used by two calls of a turn, or answered twice.
        MessageTypeError: an item of ``messages`` is not a ``Message``.

    Examples:
        ```python
        from messages import AIMessage, OrphanToolResultError, ToolMessage, UserMessage
        from messages import validate_conversation

        trimmed = [ToolMessage(tool_call_id="call_1", content="rain"),  # its call was cut off
                   UserMessage(content="And tomorrow?")]
        try:
            validate_conversation(trimmed)
        except OrphanToolResultError as error:
            print(error)  # message 0 is a tool result for 'call_1' ... names the fix
        validate_conversation([UserMessage(content="Hi"), AIMessage(content="Hello!")])
        ```
    """
    if _is_valid(messages):
        return
    check_types(messages)
    for error in _scan(messages):
        raise error


def validated_call_ids(messages: Sequence[Message]) -> list[str] | None:
    """``validate_conversation``, which also gives every tool call id of ``messages`` in order: each tool
    result answers one of them, by the same id. ``None`` where the conversation is not valid but no
    problem is raised (nothing ``validate_conversation`` lets through today)."""
    call_ids: list[str] = []
    if _is_valid(messages, call_ids):
        return call_ids
    validate_conversation(messages)
    return None


def check_types(messages: Sequence[Any]) -> None:
    """Raise ``MessageTypeError`` for the first item of ``messages`` that is not a message."""
    for index, message in enumerate(messages):
        if not isinstance(message, _MESSAGE_TYPES):
            raise MessageTypeError(
                f"message {index} is a {type(message).__name__}, not a Message; read dicts with "
                "load_messages() first"
            )


def _is_valid(messages: Sequence[Any], call_ids: list[str] | None = None) -> bool:
    """Whether ``messages`` passes, without building any error: the fast path of a valid conversation.
    The ids of the tool calls met are added to ``call_ids`` when given."""
    if not messages:
        return False
    pending: set[str] | None = None  # the open turn's unanswered calls; None when no turn is open
    for message in messages:
        if isinstance(message, ToolMessage):
            if pending is None or message.tool_call_id not in pending:
                return False
            pending.discard(message.tool_call_id)
            continue
        if pending:
            return False
        pending = None
        if isinstance(message, AIMessage):
            if message.tool_calls:
                ids = [call.id for call in message.tool_calls]
                pending = set(ids)
                if len(pending) != len(ids):
                    return False
                if call_ids is not None:
                    call_ids += ids
        elif not isinstance(message, _MESSAGE_TYPES):
            return False
    return not pending


def unique_call_id(call_id: str, taken: set[str]) -> str:
    """``"<call_id>_<n>"`` with the smallest ``n >= 2`` that ``taken`` does not hold: the new id of a call
    whose id is used again where it may not be."""
    n = 2
    while f"{call_id}_{n}" in taken:
        n += 1
    return f"{call_id}_{n}"


@dataclass(eq=False)
class _RepairTurn:
    """An assistant turn being repaired: its calls (renamed where repeated) and the results given to them."""

    calls: list[str]
    results: list[ToolMessage] = field(default_factory=list)
    answered: set[str] = field(default_factory=set)


def repair_conversation(messages: Sequence[Message], *, late_results: LateResults = "move") -> list[Message]:
    """A copy of ``messages`` that passes ``validate_conversation`` (the module docstring says what changes).

    ``late_results`` says what happens to a tool result that answers a call of an earlier assistant turn
    but comes after other messages: ``"move"`` (the default) moves it back after its call's turn, since it
    is the tool's real output; ``"drop"`` drops it, and its call gets a synthesized result instead. With
    ``"drop"`` the repair only drops tool results, adds synthesized ones and renames call ids repeated
    within a turn: every other message keeps its place.

    Args:
        messages: the conversation; never changed.
        late_results: ``"move"`` or ``"drop"`` a tool result that comes after other messages.

    Returns:
        A new list that passes ``validate_conversation``.

    Raises ``EmptyConversationError`` when nothing would remain: an empty list, or a list of tool results
    that answer no call. Raises ``MessageTypeError`` for an item that is not a message, and ``ValueError``
    for a ``late_results`` other than ``"move"`` or ``"drop"``.

    Raises:
        EmptyConversationError: ``messages`` is empty: there is nothing to repair.
        ValueError: ``late_results`` is neither ``"move"`` nor ``"drop"``.
        MessageTypeError: an item of ``messages`` is not a ``Message``.

    Examples:
        ```python
        from messages import AIMessage, ToolCall, UserMessage, is_synthesized_result
        from messages import repair_conversation, validate_conversation

        call = ToolCall(id="call_1", name="weather", arguments={})
        broken = [UserMessage(content="Weather?"), AIMessage(tool_calls=[call]),
                  UserMessage(content="Hello?")]
        repaired = repair_conversation(broken)
        validate_conversation(repaired)
        assert is_synthesized_result(repaired[2])  # says the call was not completed
        ```
    """
    if late_results not in ("move", "drop"):
        raise ValueError(f'late_results must be "move" or "drop"; got {late_results!r}')
    check_types(messages)
    if not messages:
        raise EmptyConversationError(
            "cannot repair an empty conversation: there is nothing to send; add at least one message"
        )
    taken = {call.id for message in messages if isinstance(message, AIMessage) for call in message.tool_calls}
    # The repaired list: every message but the tool results, each tool-call turn followed by a placeholder
    # for its results, filled once every message has been read (a result may come late).
    skeleton: list[Message | _RepairTurn] = []
    # The calls still unanswered, by the id results use (a call's original id, before any renaming), in
    # the order they were made: a result answers the first of them in its own turn, else the first of them
    # in an earlier turn.
    open_calls: dict[str, list[tuple[_RepairTurn, str]]] = {}
    current: _RepairTurn | None = None  # the turn the messages being read directly follow

    for message in messages:
        if isinstance(message, ToolMessage):
            candidates = open_calls.get(message.tool_call_id, [])
            own = next((c for c in candidates if c[0] is current), None)
            if own is None and (late_results == "drop" or not candidates):
                continue  # an orphan, a second answer to the same call, or (when dropping) a late result
            target = own or candidates[0]
            candidates.remove(target)
            turn, call_id = target
            if call_id != message.tool_call_id:
                message = message.model_copy(update={"tool_call_id": call_id})
            turn.results.append(message)
            turn.answered.add(call_id)
            continue
        current = None
        if isinstance(message, AIMessage) and message.tool_calls:
            calls: list[ToolCall] = []
            current = _RepairTurn(calls=[])
            seen: set[str] = set()  # ids are scoped to their turn: only a repeat within it is renamed
            for call in message.tool_calls:
                original = call.id
                if original in seen:
                    call = call.model_copy(update={"id": unique_call_id(original, taken)})
                    taken.add(call.id)
                seen.add(call.id)
                current.calls.append(call.id)
                open_calls.setdefault(original, []).append((current, call.id))
                calls.append(call)
            if calls != message.tool_calls:
                message = message.model_copy(update={"tool_calls": calls})
            skeleton.append(message)
            skeleton.append(current)
        else:
            skeleton.append(message)

    if not skeleton:
        raise EmptyConversationError(
            f"cannot repair a conversation of {len(messages)} tool result(s) that answer no call: nothing "
            "would remain to send; start it with the user message (or the assistant turn with the calls)"
        )
    repaired: list[Message] = []
    for entry in skeleton:
        if isinstance(entry, _RepairTurn):
            repaired.extend(entry.results)
            repaired.extend(
                ToolMessage(tool_call_id=call_id, content=MISSING_RESULT)
                for call_id in entry.calls
                if call_id not in entry.answered
            )
        else:
            repaired.append(entry)
    return repaired
