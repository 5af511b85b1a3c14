"""Context windows: properties over generated histories for every class and random sizes, the state round
trip, and named regressions of the windows other frameworks get wrong."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import (
    AIMessage,
    ContextStateError,
    InvalidArgumentError,
    Message,
    MessagesError,
    MessageTypeError,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UnansweredToolCallError,
    UserMessage,
    repair_conversation,
    validate_conversation,
)
from messages import strategies as ms
from messages.context import (
    STATE_VERSION,
    BufferedContext,
    ChatCompletionContext,
    HeadAndTailContext,
    TokenLimitedContext,
    UnboundedContext,
    skipped_messages_note,
)
from tests.test_protocol_properties import reference_valid, segments

HISTORIES = ms.conversations(max_turns=12, max_parallel_calls=3, extensions=False)
BROKEN_HISTORIES = ms.broken_conversations(max_turns=12, max_parallel_calls=3, extensions=False)


def weight(message: Message) -> int:
    """A cheap stand-in token count for the property tests: one token per 20 characters of the dump."""
    return len(message.model_dump_json()) // 20


def list_weight(messages: list[Message]) -> int:
    """The same as a list counter, with a fixed overhead of 3 (as litellm's reply priming)."""
    return 3 + sum(weight(m) for m in messages)


# -- the window, from the rules (brute force, from scratch) -------------------------------------------------


def split(history: Sequence[Message]) -> tuple[list[Message], list[list[Message]]]:
    """The leading system messages, and the units after them."""
    lead = 0
    while lead < len(history) and isinstance(history[lead], SystemMessage):
        lead += 1
    return list(history[:lead]), segments(history[lead:])


def newest_fitting(units: list[list[Message]], cost: Callable[[list[Message]], float], budget: float):
    """The newest units whose costs add up to at most ``budget``; the newest one always."""
    kept = units[-1:]
    for unit in reversed(units[:-1]):
        if sum(map(cost, kept)) + cost(unit) > budget:
            break
        kept.insert(0, unit)
    return kept


def flat(units: list[list[Message]]) -> list[Message]:
    return [m for unit in units for m in unit]


def expected_window(context: ChatCompletionContext, history: Sequence[Message]) -> list[Message]:
    lead, units = split(history)
    if not units:
        return list(history)
    if isinstance(context, UnboundedContext):
        return list(history)
    if isinstance(context, BufferedContext):
        return lead + flat(newest_fitting(units, len, context.buffer_size))
    if isinstance(context, TokenLimitedContext):
        fixed = 3 + sum(map(weight, lead))  # the property tests count with `weight` (+3 for list_weight)
        if context.message_token_counter is not None:
            fixed -= 3
        return lead + flat(newest_fitting(units, lambda u: sum(map(weight, u)), context.token_limit - fixed))
    assert isinstance(context, HeadAndTailContext)
    if len(flat(units)) <= context.head_size + context.tail_size:
        return list(history)  # it fits: the whole history
    head: list[list[Message]] = []
    for unit in units:
        if len(flat([*head, unit])) > context.head_size:
            break
        head.append(unit)
    rest = units[len(head) :]
    tail = newest_fitting(rest, len, context.tail_size) if rest else []
    skipped = flat(rest[: len(rest) - len(tail)])
    if not skipped:
        return list(history)
    return [*lead, *flat(head), skipped_messages_note(len(skipped)), *flat(tail)]


# -- contexts of every class with random sizes ------------------------------------------------------------


def make(kind: str, sizes: tuple[int, int]) -> ChatCompletionContext:
    first, second = sizes
    if kind == "unbounded":
        return UnboundedContext()
    if kind == "buffered":
        return BufferedContext(first)
    if kind == "head_and_tail":
        return HeadAndTailContext(first - 1, second)
    if kind == "tokens_per_message":
        return TokenLimitedContext(first * 40, message_token_counter=weight)
    return TokenLimitedContext(first * 40, token_counter=list_weight)


KINDS = ["unbounded", "buffered", "head_and_tail", "tokens_per_message", "tokens_per_list"]
CONTEXTS = st.builds(make, st.sampled_from(KINDS), st.tuples(st.integers(1, 8), st.integers(1, 8)))


def same_settings(context: ChatCompletionContext) -> ChatCompletionContext:
    """A fresh, empty context of the same class and settings."""
    if isinstance(context, BufferedContext):
        return BufferedContext(context.buffer_size)
    if isinstance(context, HeadAndTailContext):
        return HeadAndTailContext(context.head_size, context.tail_size)
    if isinstance(context, TokenLimitedContext):
        return TokenLimitedContext(
            context.token_limit,
            token_counter=context.token_counter,
            message_token_counter=context.message_token_counter,
        )
    return UnboundedContext()


def is_subsequence(window: list[Message], history: list[Message]) -> bool:
    """Whether ``window`` is ``history`` with messages left out, the very same objects, in order."""
    position = 0
    for message in window:
        while position < len(history) and history[position] is not message:
            position += 1
        if position == len(history):
            return False
        position += 1
    return True


def check_window(context: ChatCompletionContext, history: list[Message], window: list[Message]) -> None:
    """What every window must be, stated without the reference window above."""
    lead, units = split(history)
    notes = [m for m in window if not any(m is h for h in history)]
    kept = [m for m in window if any(m is h for h in history)]
    assert is_subsequence(kept, history), "the window is the history's messages, in order"
    assert window[: len(lead)] == lead, "leading system messages are kept"
    assert bool(window) == bool(history), "a window of a non-empty history is never empty"
    if units:
        assert window[-len(units[-1]) :] == units[-1], "the newest unit is kept, whole"
    if reference_valid(history):
        validate_conversation(window)
    rest = window[len(lead) :]
    newest_alone = rest == (units[-1] if units else [])
    if isinstance(context, BufferedContext):
        assert not notes
        assert len(rest) <= context.buffer_size or newest_alone
    elif isinstance(context, TokenLimitedContext):
        assert not notes
        count = context.token_counter or (lambda ms: sum(map(weight, ms)))
        assert count(window) == context.token_count()
        assert count(window) <= context.token_limit or newest_alone
    elif isinstance(context, HeadAndTailContext):
        assert len(notes) <= 1
        if len(history) - len(lead) <= context.head_size + context.tail_size:
            assert window == history, "a history that fits is the window, whole, with no placeholder"
        if not notes:
            assert window == history
        else:
            at = next(i for i, m in enumerate(window) if m is notes[0])
            head, tail = window[len(lead) : at], window[at + 1 :]
            assert len(head) <= context.head_size
            assert len(tail) <= context.tail_size or tail == units[-1]
            # The placeholder counts exactly the messages left out.
            assert notes[0] == skipped_messages_note(len(history) - len(kept))
    else:
        assert window == history


@given(context=CONTEXTS, history=st.one_of(HISTORIES, BROKEN_HISTORIES), reads=st.lists(st.booleans()))
def test_every_window_read_while_messages_arrive_follows_the_rules(context, history, reads):
    # Read after some appends and not others: the window moves forward incrementally between reads.
    for index, message in enumerate(history):
        context.add_message(message)
        if index == len(history) - 1 or (reads[index] if index < len(reads) else False):
            prefix = history[: index + 1]
            window = context.get_messages()
            check_window(context, prefix, window)
            assert window == expected_window(context, prefix)
    assert context.history == history


@given(context=CONTEXTS, history=st.one_of(HISTORIES, BROKEN_HISTORIES))
def test_initial_messages_give_the_window_of_messages_added_one_by_one(context, history):
    fresh = same_settings(context)
    for message in history:
        fresh.add_message(message)
    built = type(context)
    if isinstance(context, BufferedContext):
        start = built(context.buffer_size, history)
    elif isinstance(context, HeadAndTailContext):
        start = built(context.head_size, context.tail_size, history)
    elif isinstance(context, TokenLimitedContext):
        start = built(
            context.token_limit,
            history,
            token_counter=context.token_counter,
            message_token_counter=context.message_token_counter,
        )
    else:
        start = built(history)
    assert start.get_messages() == fresh.get_messages()


@given(context=CONTEXTS, history=st.one_of(HISTORIES, BROKEN_HISTORIES))
def test_state_through_json_reproduces_the_window_exactly(context, history):
    for message in history:
        context.add_message(message)
    window = context.get_messages()
    state = json.loads(json.dumps(context.save_state()))
    assert state["type"] == type(context).__name__
    assert state["version"] == 1  # a whole history; version 2 only for a part a store read gave
    fresh = same_settings(context)
    fresh.load_state(state)
    assert fresh.history == history
    assert fresh.get_messages() == window
    # Loading replaces what a context held, and a cleared context starts over.
    context.clear()
    assert context.get_messages() == []
    context.add_message(UserMessage(content="again"))
    context.load_state(state)
    assert context.get_messages() == window


# -- head and tail: the whole history when it fits, else the most that any cut keeps ------------------------

SMALL_HISTORIES = ms.conversations(max_turns=6, max_parallel_calls=3, extensions=False)
SMALL_BROKEN_HISTORIES = ms.broken_conversations(max_turns=6, max_parallel_calls=3, extensions=False)


def leading_system(history: Sequence[Message]) -> int:
    lead = 0
    while lead < len(history) and isinstance(history[lead], SystemMessage):
        lead += 1
    return lead


def most_kept_by_any_cut(history: list[Message], head_size: int, tail_size: int) -> int:
    """The most history messages a head-and-tail window of ``history`` can keep, by trying every cut.

    A cut keeps ``rest[:i]`` (the head) and ``rest[j:]`` (the tail) of the messages after the leading system
    messages, with a placeholder between them when ``i < j``. It is a valid choice when the head holds at
    most ``head_size`` messages, the tail at most ``tail_size`` or only the newest unit (the last message
    that is not a tool result, and the results after it), and it splits no exchange; or when it keeps
    everything and the history fits in ``head_size + tail_size``. Whether a cut splits an exchange is judged
    by ``validate_conversation`` itself when the history passes it (so this shares nothing with the units of
    messages.context), and by the module's rule otherwise (a part may start with a tool result only where
    the history does).
    """
    lead = leading_system(history)
    rest = history[lead:]
    n = len(rest)
    if n == 0:
        return 0
    newest = max(p for p in range(n) if p == 0 or not isinstance(rest[p], ToolMessage))
    judged_by_protocol = reference_valid(history)

    def splits_nothing(i: int, j: int) -> bool:
        if judged_by_protocol:
            note = [skipped_messages_note(j - i)] if i < j else []
            try:
                validate_conversation([*history[:lead], *rest[:i], *note, *rest[j:]])
            except MessagesError:
                return False
            return True
        return all(p in (0, n) or not isinstance(rest[p], ToolMessage) for p in (i, j))

    best = 0
    for i in range(n + 1):
        for j in range(i, newest + 1):
            within = i <= head_size and (n - j <= tail_size or j == newest)
            fits = i == j and n <= head_size + tail_size
            if (within or fits) and i + n - j > best and splits_nothing(i, j):
                best = i + n - j
    return best


def kept(window: list[Message], history: list[Message]) -> int:
    """How many history messages ``window`` holds (the placeholder is not one of them)."""
    return sum(any(m is h for h in history) for m in window)


def sizes_near_a_boundary(data: st.DataObject, history: list[Message]) -> tuple[int, int]:
    """``head_size`` and ``tail_size`` that put the boundary between head and tail inside an exchange most
    of the time (at a tool result, when the history has one), each give or take one message, so that head
    plus tail is often exactly the history's length, one short or one more; now and then any sizes."""
    rest = history[leading_system(history) :]
    results = [p for p, m in enumerate(rest) if isinstance(m, ToolMessage)]
    if not results or data.draw(st.integers(0, 3), label="any sizes") == 0:
        head_size = data.draw(st.integers(0, len(rest) + 1), label="head_size")
        return head_size, data.draw(st.integers(1, len(rest) + 1), label="tail_size")
    boundary = data.draw(st.sampled_from(results), label="boundary")
    head_size = max(0, boundary + data.draw(st.integers(-1, 1), label="head give or take"))
    tail_size = max(1, len(rest) - boundary + data.draw(st.integers(-1, 1), label="tail give or take"))
    return head_size, tail_size


@given(history=st.one_of(HISTORIES, BROKEN_HISTORIES), data=st.data())
def test_head_and_tail_window_is_the_whole_history_whenever_it_fits(history, data):
    head_size, tail_size = sizes_near_a_boundary(data, history)
    context = HeadAndTailContext(head_size, tail_size, history)
    window = context.get_messages()
    if len(history) - leading_system(history) <= head_size + tail_size:
        assert window == history
    check_window(context, history, window)
    # The same through save_state / load_state (JSON on the way), and message by message.
    loaded = HeadAndTailContext(head_size, tail_size)
    loaded.load_state(json.loads(json.dumps(context.save_state())))
    grown = HeadAndTailContext(head_size, tail_size)
    for message in history:
        grown.add_message(message)
        grown.get_messages()
    assert loaded.get_messages() == grown.get_messages() == window


@given(history=st.one_of(SMALL_HISTORIES, SMALL_BROKEN_HISTORIES), data=st.data())
def test_head_and_tail_window_keeps_the_most_that_any_valid_cut_keeps(history, data):
    head_size, tail_size = sizes_near_a_boundary(data, history)
    context = HeadAndTailContext(head_size, tail_size, history)
    window = context.get_messages()
    check_window(context, history, window)  # valid, within its bounds, counting what it left out
    best = most_kept_by_any_cut(history, head_size, tail_size)
    assert kept(window, history) - leading_system(history) == best


def test_head_and_tail_issue_15_a_history_that_fits_is_not_cut_around_its_exchange():
    """Issue 15: five messages in a window of 2 + 3 came back as three, the exchange replaced by a note.

    The head could not end inside the exchange and the tail could not start inside it, so both rounded
    away from it; AutoGen's ``HeadAndTailChatCompletionContext`` gives back the whole history whenever it
    fits in ``head_size + tail_size`` messages, and so does this window now.
    """
    c, d = ToolCall(id="a", name="f", arguments={}), ToolCall(id="b", name="f", arguments={})
    history = [
        UserMessage(content="q"),
        AIMessage(tool_calls=[c, d]),
        ToolMessage.for_call(c, "1"),
        ToolMessage.for_call(d, "2"),
        UserMessage(content="next"),
    ]
    assert HeadAndTailContext(head_size=2, tail_size=3, initial_messages=history).get_messages() == history
    assert HeadAndTailContext(2, 3, [SYSTEM, *history]).get_messages() == [SYSTEM, *history]
    # One message more than fits: the exchange goes to neither side (3 messages: more than a head of 2
    # after 'q', and more than a tail of 3 with 'next'), and the placeholder counts exactly it.
    longer = [*history, AIMessage(content="done")]
    window = HeadAndTailContext(2, 3, longer).get_messages()
    assert window == [history[0], skipped_messages_note(3), history[-1], longer[-1]]
    # A side that can hold it whole gets it: a head of 4 (with 'q'), or a tail of 5 (with what follows).
    assert HeadAndTailContext(4, 1, longer).get_messages() == [
        *longer[:4],
        skipped_messages_note(1),
        longer[-1],
    ]
    assert HeadAndTailContext(0, 5, longer).get_messages() == [skipped_messages_note(1), *longer[1:]]


# -- named cases ------------------------------------------------------------------------------------------

SYSTEM = SystemMessage(content="Be brief.")


def call(call_id: str) -> ToolCall:
    return ToolCall(id=call_id, name="get_weather", arguments={"city": call_id})


def exchange(*ids: str) -> list[Message]:
    calls = [call(i) for i in ids]
    return [AIMessage(tool_calls=calls), *(ToolMessage.for_call(c, f"sunny in {c.id}") for c in calls)]


def test_autogen_7955_token_limit_never_orphans_a_result_from_the_middle():
    """https://github.com/microsoft/autogen/issues/7955

    AutoGen's ``TokenLimitedChatCompletionContext`` pops the message at ``len(messages) // 2`` until the
    count fits, then only checks index 0 for a stray result: with 7 one-token messages and ``token_limit=6``
    the one pop removes the assistant message holding ``call_1`` and keeps its result in the middle of the
    list, which providers reject. Here the exchange is one unit: kept whole while it fits, dropped whole
    when it does not, and the oldest messages go first.
    """
    history = [
        UserMessage(content="Hi"),
        AIMessage(content="Hello!"),
        UserMessage(content="Weather in Paris?"),
        *exchange("call_1"),
        AIMessage(content="Sunny."),
        UserMessage(content="Thanks"),
    ]
    six = TokenLimitedContext(6, history, message_token_counter=lambda m: 1)
    assert six.get_messages() == history[1:]
    validate_conversation(six.get_messages())
    # A limit that would cut the exchange in two drops it whole, with everything older.
    three = TokenLimitedContext(3, history, message_token_counter=lambda m: 1)
    assert three.get_messages() == history[-2:]
    assert three.token_count() == 2


def test_langchain_33245_last_n_window_never_starts_with_a_tool_result():
    """https://github.com/langchain-ai/langchain/issues/33245

    ``trim_messages(messages, strategy="last", token_counter=len, max_tokens=5)`` over a history whose
    second and third messages are a tool call and its result returns the last five messages, which start
    with the ``ToolMessage``: OpenAI answers 400 "messages with role 'tool' must be a response to a
    preceding message with 'tool_calls'" (quirk 2). Here the window of five keeps only
    whole exchanges: the call and its result do not both fit, so both are left out.
    """
    history = [
        UserMessage(content="What's the weather in Florida?"),
        *exchange("abc123"),
        UserMessage(content="And tomorrow?"),
        AIMessage(content="Also sunny."),
        UserMessage(content="Thanks!"),
        AIMessage(content="You're welcome."),
    ]
    assert isinstance(history[-5], ToolMessage)  # what a plain last-5 trim would start with
    window = BufferedContext(5, history).get_messages()
    assert window == history[-4:]
    validate_conversation(window)


def test_head_and_tail_placeholder_counts_what_the_window_left_out():
    """AutoGen's ``HeadAndTailChatCompletionContext`` says "Skipped {len - head_size - tail_size} messages"
    even after it drops a call from the end of the head or a result from the start of the tail, so the
    count is wrong by what it dropped. Here the placeholder counts the messages actually left out."""
    history = [
        SYSTEM,
        UserMessage(content="Plan a trip."),
        *exchange("a", "b"),  # 3 messages: does not fit a head of 2 after the user message
        AIMessage(content="Done."),
        UserMessage(content="Next?"),
        *exchange("c"),  # 2 messages
        AIMessage(content="Booked."),
    ]
    window = HeadAndTailContext(2, 2, history).get_messages()
    # Head: the user message (the exchange after it does not fit); tail: the last message (the exchange
    # before it does not fit in 2 with it). Left out: 3 + 1 + 1 + 2 = 7 of the 10 messages.
    assert window == [SYSTEM, history[1], skipped_messages_note(7), history[-1]]
    assert window[2] == UserMessage(content="[7 earlier messages of this conversation are left out here.]")
    validate_conversation(window)
    one = HeadAndTailContext(0, 8, history).get_messages()  # all but the first user message
    assert one[1] == UserMessage(content="[1 earlier message of this conversation is left out here.]")
    assert HeadAndTailContext(9, 1, history).get_messages() == history  # nothing left out: no placeholder


def test_head_and_tail_placeholder_can_be_replaced():
    history = [UserMessage(content=str(i)) for i in range(6)]
    context = HeadAndTailContext(
        1, 1, history, placeholder=lambda n: SystemMessage(content=f"({n} messages omitted)")
    )
    assert context.get_messages() == [history[0], SystemMessage(content="(4 messages omitted)"), history[5]]
    bad = HeadAndTailContext(1, 1, history, placeholder=lambda n: ToolMessage(tool_call_id="x", content="?"))
    with pytest.raises(ValueError, match="placeholder must not be a tool result"):
        bad.get_messages()


def test_a_window_read_during_a_tool_loop_holds_the_open_exchange_as_the_history_does():
    # A bot adds the assistant's tool-call turn, then the results one by one, reading the window between.
    question = UserMessage(content="Weather in Oslo, Lima, Rome?")
    context = BufferedContext(3, [SYSTEM, question])
    calls = [call("oslo"), call("lima"), call("rome")]
    context.add_message(AIMessage(tool_calls=calls))
    for answered, c in enumerate(calls):
        window = context.get_messages()
        # The open exchange is the newest unit: whole, pending calls and all; the question stays while it
        # fits in the buffer beside it.
        so_far = context.history[2:]
        assert window == [SYSTEM, *([question] if 1 + len(so_far) <= 3 else []), *so_far]
        with pytest.raises(UnansweredToolCallError) as info:
            validate_conversation(window)
        assert info.value.tool_call_ids == tuple(x.id for x in calls[answered:])
        validate_conversation(repair_conversation(window))  # how to send it anyway
        context.add_message(ToolMessage.for_call(c, "sunny"))
    window = context.get_messages()
    assert window == [SYSTEM, *context.history[2:]]  # 4 messages: the newest unit alone exceeds 3
    validate_conversation(window)
    context.add_message(AIMessage(content="Sunny everywhere."))
    assert context.get_messages() == [SYSTEM, context.history[-1]]


def test_leading_system_messages_are_kept_and_later_ones_are_ordinary_messages():
    history = [
        SYSTEM,
        SystemMessage(role="developer", content="Use metric units."),
        UserMessage(content="a"),
        SystemMessage(content="The user is in Oslo."),
        UserMessage(content="b"),
        AIMessage(content="c"),
    ]
    assert BufferedContext(1, history).get_messages() == [*history[:2], history[-1]]
    assert BufferedContext(3, history).get_messages() == [*history[:2], *history[3:]]
    only_system = BufferedContext(1, history[:2])
    assert only_system.get_messages() == history[:2]


def test_token_limit_counts_the_system_messages_and_the_list_overhead():
    history = [SYSTEM, UserMessage(content="a"), AIMessage(content="b"), UserMessage(content="c")]
    # overhead 3, each message 2: the system message and the overhead take 5 of 9, leaving room for two.
    context = TokenLimitedContext(9, history, token_counter=lambda ms: 3 + 2 * len(ms))
    assert context.get_messages() == [SYSTEM, *history[2:]]
    assert context.token_count() == 9
    per_message = TokenLimitedContext(9, history, message_token_counter=lambda m: 2)
    assert per_message.get_messages() == history  # no overhead: 8 tokens
    assert per_message.token_count() == 8


def test_token_window_exceeds_its_limit_when_the_system_messages_alone_reach_it():
    # The second case in which a token window is over its limit: the leading system messages (here with
    # the overhead) take it all; the newest unit is kept all the same, and nothing older.
    history = [SYSTEM, SystemMessage(content="more"), UserMessage(content="a"), AIMessage(content="b")]
    context = TokenLimitedContext(6, history, token_counter=lambda ms: 2 + 2 * len(ms))
    assert context.get_messages() == [*history[:2], history[3]]
    assert context.token_count() == 8
    # The message-count windows do not count the leading system messages at all.
    assert BufferedContext(1, history).get_messages() == [*history[:2], history[3]]


def test_a_counter_of_zero_leaves_the_token_window_unbounded():
    history = [SYSTEM, *(UserMessage(content=str(i)) for i in range(20))]
    context = TokenLimitedContext(1, message_token_counter=lambda m: 0)
    for message in history:
        context.add_message(message)
        assert context.get_messages() == context.history
    assert context.token_count() == 0


def test_langchains_counter_works_through_the_documented_adapter():
    # The TokenCounter docstring: LangChain's counters read LangChain messages, not these.
    messages_utils = pytest.importorskip("langchain_core.messages.utils")
    from langchain_core.messages import convert_to_messages

    from messages import dump_messages

    history = [SYSTEM, UserMessage(content="hello " * 40), AIMessage(content="hi"), UserMessage(content="q")]
    with pytest.raises(NotImplementedError):
        messages_utils.count_tokens_approximately(history)
    context = TokenLimitedContext(
        30,
        history,
        token_counter=lambda ms: messages_utils.count_tokens_approximately(
            convert_to_messages(dump_messages(ms, validate=False))
        ),
    )
    assert context.get_messages() == [SYSTEM, *history[2:]]


def test_each_message_is_counted_once():
    seen: list[str] = []

    def counter(message: Message) -> int:
        seen.append(str(message.content))
        return 5

    context = TokenLimitedContext(12, message_token_counter=counter)
    for i in range(50):
        context.add_message(UserMessage(content=str(i)))
        context.get_messages()
        context.token_count()
    assert seen == [str(i) for i in range(50)]
    # A long history loaded at once is counted from its end, only as far as the window reaches.
    seen.clear()
    loaded = TokenLimitedContext(12, message_token_counter=counter)
    loaded.load_state(context.save_state())
    assert [m.content for m in loaded.get_messages()] == ["48", "49"]
    assert seen == ["49", "48", "47"]  # the third does not fit, and no older one is counted


def test_a_failing_counter_leaves_the_context_usable():
    calls = {"n": 0}

    def flaky(message: Message) -> int:
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("tokenizer unavailable")
        return 1

    context = TokenLimitedContext(2, message_token_counter=flaky)
    context.add_message(UserMessage(content="a"))
    context.add_message(UserMessage(content="b"))
    assert len(context.get_messages()) == 2
    context.add_message(UserMessage(content="c"))
    with pytest.raises(RuntimeError, match="tokenizer unavailable"):
        context.get_messages()
    assert [m.content for m in context.get_messages()] == ["b", "c"]


# -- bad input --------------------------------------------------------------------------------------------

BAD_STATES: list[tuple[Any, str]] = [
    ([], "cannot load a list into a BufferedContext"),
    ({"type": "BufferedContext", "version": 1}, "the state has no 'messages'"),
    (
        {"type": "HeadAndTailContext", "version": 1, "messages": []},
        "saved by 'HeadAndTailContext', not by a BufferedContext",
    ),
    (
        {"type": "BufferedContext", "version": STATE_VERSION + 1, "messages": []},
        "written by a newer version of this package",
    ),
    ({"type": "BufferedContext", "version": True, "messages": []}, "not a version number"),
    ({"type": "BufferedContext", "version": "1", "messages": []}, "not a version number"),
    ({"type": "BufferedContext", "version": 1, "messages": {}}, "'messages' is a dict, not a list"),
    (
        {"type": "BufferedContext", "version": 1, "messages": [{"role": "wizard", "content": "hi"}]},
        r"'messages' do not read as messages: .*\n0\n",
    ),
    (
        {"type": "BufferedContext", "version": 1, "messages": [], "buffer_size": 3},
        r"keys that version 1 does not write: \['buffer_size'\]",
    ),
]


@pytest.mark.parametrize(("state", "message"), BAD_STATES)
def test_load_state_rejects_what_it_cannot_load_and_changes_nothing(state, message):
    history = [SYSTEM, UserMessage(content="keep me"), AIMessage(content="ok")]
    context = BufferedContext(2, history)
    before = context.get_messages()
    with pytest.raises(ContextStateError, match=message) as info:
        context.load_state(state)
    assert isinstance(info.value, MessagesError)
    assert isinstance(info.value, ValueError)
    assert context.history == history
    assert context.get_messages() == before


def test_constructors_reject_bad_sizes_and_counters():
    with pytest.raises(ValueError, match="buffer_size must be at least 1; got 0"):
        BufferedContext(0)
    with pytest.raises(TypeError, match="buffer_size must be an int; got float"):
        BufferedContext(2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="head_size must be at least 0"):
        HeadAndTailContext(-1, 2)
    with pytest.raises(ValueError, match="tail_size must be at least 1"):
        HeadAndTailContext(2, 0)
    with pytest.raises(TypeError, match="exactly one of model="):
        TokenLimitedContext(100)
    with pytest.raises(TypeError, match="got model, message_token_counter"):
        TokenLimitedContext(100, model="gpt-4o-mini", message_token_counter=len)  # type: ignore[arg-type]


def test_bad_messages_and_counts_are_named():
    with pytest.raises(MessageTypeError, match="the message to add is a dict"):
        UnboundedContext().add_message({"role": "user", "content": "hi"})  # type: ignore[arg-type]
    with pytest.raises(MessageTypeError, match="initial message 1 is a str"):
        UnboundedContext([SYSTEM, "hi"])  # type: ignore[list-item]
    negative = TokenLimitedContext(10, [UserMessage(content="a")], message_token_counter=lambda m: -1)
    with pytest.raises(ValueError, match="the token count of message 0 is -1, below 0") as raised:
        negative.get_messages()
    # A MessagesError that names the counter given, as every window and store error does.
    assert isinstance(raised.value, InvalidArgumentError)
    assert raised.value.argument == "message_token_counter"
    # A list counter that does not add up per message gives a negative count: said, with the index.
    shrinking = TokenLimitedContext(
        10, [SYSTEM, UserMessage(content="a")], token_counter=lambda ms: 5 - len(ms)
    )
    with pytest.raises(ValueError, match=r"the token count of message 0 \(token_counter\(\[message 0\]\) - "):
        shrinking.get_messages()
    fractional = TokenLimitedContext(10, [UserMessage(content="a")], token_counter=lambda ms: 0.5)  # type: ignore[arg-type, return-value]
    with pytest.raises(TypeError, match=r"token_counter\(\[\]\) is a float") as raised:
        fractional.get_messages()
    assert isinstance(raised.value, InvalidArgumentError)
    assert raised.value.argument == "token_counter"


def test_the_module_exports_its_names_and_imports_no_litellm():
    import subprocess
    import sys

    import messages.context

    assert len(set(messages.context.__all__)) == len(messages.context.__all__)
    for name in messages.context.__all__:
        assert getattr(messages.context, name) is not None
    code = "import sys, messages.context; print(sorted(m for m in sys.modules if m.startswith('litellm')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_settings_are_read_only():
    context = BufferedContext(3)
    with pytest.raises(AttributeError):
        context.buffer_size = 5  # type: ignore[misc]


def test_windows_and_history_are_new_lists():
    history = [SYSTEM, UserMessage(content="a"), AIMessage(content="b")]
    contexts = [UnboundedContext(history), BufferedContext(1, history), HeadAndTailContext(0, 1, history)]
    for context in contexts:
        context.get_messages().clear()
        context.history.clear()
        assert context.history == history
        assert context.get_messages()[0] == SYSTEM
