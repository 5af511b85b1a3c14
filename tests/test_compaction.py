"""Compaction (``messages.compaction``) on the in-memory store: properties over generated conversations
(every read as recomputed from the whole thread and within the protocol, no cut inside an exchange, no
message record changed, summaries chained with full coverage), the summarizer's failures, chaining within
the input budget, pending calls, the stable prefix between checkpoints, appends during a summary, token
counts saved once, and the window's state. The same properties run on every backend, in both flavours, in
tests/stores/test_checkpoints.py."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AIMessage,
    AsyncInMemoryThreadStore,
    InMemoryThreadStore,
    InvalidArgumentError,
    LocalThread,
    MessageTypeError,
    SummarizerError,
    SummaryInputTooLargeError,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
    validate_conversation,
)
from messages.caching import place_cache_breakpoints
from messages.compaction import (
    SUMMARY_MARKER,
    CompactingContext,
    Compactor,
    LiteLLMSummarizer,
    SummaryResult,
    is_summary,
    summary_message,
    summary_text,
)
from tests.compaction_cases import WINDOWS, Scripted, reference_read, run_conversation, turns, weight


@settings(max_examples=40, deadline=None)
@given(window=WINDOWS, chunks=turns(), forced=st.lists(st.booleans(), min_size=1, max_size=5))
def test_reads_and_compactions_over_generated_conversations_keep_every_invariant(window, chunks, forced):
    run_conversation(InMemoryThreadStore(), window, chunks, forced)


def exchange(n: int, size: int = 1) -> list:
    call = ToolCall(id=f"call_{n}", name="lookup", arguments=json.dumps({"n": n}))
    return [
        UserMessage(content=f"question {n} " + "words " * size),
        AIMessage(content=None, tool_calls=[call]),
        ToolMessage.for_call(call, f"result {n} " + "data " * size),
        AIMessage(content=f"answer {n} " + "more " * size),
    ]


def new_thread(store, *messages) -> LocalThread:
    thread = LocalThread()
    store.save_thread(thread)
    store.append(thread.id, [SystemMessage(content="Be brief."), *messages])
    return thread


def test_a_compaction_keeps_the_newest_exchanges_and_starts_the_window_on_a_user_turn():
    store = InMemoryThreadStore()
    thread = new_thread(store, *(m for n in range(6) for m in exchange(n)))
    compactor = Compactor(Scripted(), limit=20, trigger=16, keep=6)
    done = compactor.compact(store, thread)
    assert (done.due, len(done.written), done.conflict) == (True, 1, None)
    [checkpoint] = done.written
    assert checkpoint.upto == 21  # positions 1..20 summarized; the last exchange (21..24) kept whole
    window = compactor.window()
    got = thread.read(store, window)
    assert got[0] == SystemMessage(content="Be brief.")
    assert got[1] == summary_message("S1-21")
    assert is_summary(got[1])
    assert got[2:] == exchange(5)
    assert window.checkpoint == checkpoint
    validate_conversation(got)


def test_the_summary_is_a_marked_system_message_right_after_the_instructions():
    message = summary_message("  The user wants a trip to Rome.  ")
    assert isinstance(message, SystemMessage)
    assert message.content == f"{SUMMARY_MARKER}\n\nThe user wants a trip to Rome."
    assert summary_text(message) == "The user wants a trip to Rome."
    assert not is_summary(SystemMessage(content="Be brief."))
    assert not is_summary(UserMessage(content="hi"))


@pytest.mark.parametrize(
    ("returns", "reason"),
    [
        pytest.param(RuntimeError("provider down"), "raised", id="raises"),
        pytest.param("", "empty", id="empty"),
        pytest.param("   \n", "empty", id="whitespace"),
        pytest.param(None, "empty", id="none"),
        pytest.param("long " * 2_000, "too_long", id="longer-than-the-span"),
        pytest.param("sleep", "timeout", id="times-out"),
    ],
)
def test_a_failing_summarizer_writes_nothing_raises_and_the_thread_reads_as_before(returns, reason):
    store = InMemoryThreadStore()
    thread = new_thread(store, *(m for n in range(6) for m in exchange(n)))
    # The summarizer that times out answers only once the test is over: however long a busy machine keeps
    # the compactor's thread waiting, the summary cannot arrive before the timeout (a sleep of a few times
    # the timeout could).
    released = threading.Event()

    def summarizer(request):
        if isinstance(returns, Exception):
            raise returns
        if returns == "sleep":
            released.wait(60)
        return returns

    compactor = Compactor(summarizer, limit=20, trigger=16, keep=6, timeout=0.2)
    before = thread.read(store, compactor.window()), store.records(thread.id)
    try:
        with pytest.raises(SummarizerError) as caught:
            compactor.compact(store, thread)
    finally:
        released.set()
    assert caught.value.reason == reason
    assert caught.value.thread_id == thread.id
    if reason == "raised":
        assert isinstance(caught.value.__cause__, RuntimeError)
    assert "nothing was written" in str(caught.value)
    assert store.checkpoints(thread.id) == []
    assert (thread.read(store, compactor.window()), store.records(thread.id)) == before


def test_a_span_over_the_summarizers_budget_is_chained_over_several_checkpoints_never_truncated():
    store = InMemoryThreadStore()
    thread = new_thread(store, *(m for n in range(12) for m in exchange(n, size=30)))
    summarizer = Scripted()
    compactor = Compactor(
        summarizer,
        limit=4_000,
        trigger=100,
        keep=50,
        message_token_counter=weight,
        counter_name="w",
        max_summary_input_tokens=200,
    )
    done = compactor.compact(store, thread)
    assert len(done.written) > 2
    chain = store.checkpoints(thread.id)
    assert list(done.written) == chain
    # Every request fit the budget, took the summary before it, and the pieces cover the span once.
    position = 1
    previous = None
    for request, checkpoint in zip(summarizer.requests, chain, strict=True):
        assert (request.start, request.upto) == (position, checkpoint.upto)
        assert request.previous == previous
        before = weight(summary_message(previous)) if previous is not None else 0
        assert before + sum(map(weight, request.messages)) <= 200
        assert not isinstance(request.messages[0], ToolMessage)
        position, previous = checkpoint.upto, summary_text(checkpoint.summary)
    assert chain[-1].upto == 45  # the newest exchange stays


def test_an_exchange_larger_than_the_summarizers_budget_alone_raises_and_writes_nothing():
    store = InMemoryThreadStore()
    thread = new_thread(store, *exchange(0, size=500), *exchange(1))
    compactor = Compactor(
        Scripted(),
        limit=4_000,
        trigger=10,
        keep=5,
        message_token_counter=weight,
        counter_name="w",
        max_summary_input_tokens=100,
    )
    with pytest.raises(SummaryInputTooLargeError, match=r"positions 1 to 1 counts \d+ tokens") as caught:
        compactor.compact(store, thread)
    assert caught.value.position == 1
    assert store.checkpoints(thread.id) == []


def test_a_pending_call_and_everything_after_it_are_never_summarized():
    store = InMemoryThreadStore()
    pending = ToolCall(id="call_approve", name="transfer", arguments='{"amount": 100}')
    thread = new_thread(
        store,
        *exchange(0),
        UserMessage(content="Send 100."),
        AIMessage(content=None, tool_calls=[pending]),  # waiting for a human's approval
        UserMessage(content="Still there?"),
        *exchange(1),
        *exchange(2),
    )
    summarizer = Scripted()
    Compactor(summarizer, limit=6, trigger=3, keep=1).compact(store, thread, force=True)
    [checkpoint] = store.checkpoints(thread.id)
    assert checkpoint.upto == 6  # right before the pending call: its unit is not summarized
    assert all(pending not in getattr(m, "tool_calls", []) for m in summarizer.requests[0].messages)


def test_messages_appended_while_a_summary_is_written_are_kept_after_the_cut():
    store = InMemoryThreadStore()
    thread = new_thread(store, *(m for n in range(6) for m in exchange(n)))
    late = exchange(99)

    def summarizer(request):
        store.append(thread.id, late)  # another process answers while the summary is being written
        return "short"

    compactor = Compactor(summarizer, limit=20, trigger=16, keep=6)
    [checkpoint] = compactor.compact(store, thread).written
    assert checkpoint.upto == 21
    got = thread.read(store, compactor.window())
    assert got[-4:] == late
    assert got[2:6] == exchange(5)


def test_between_two_checkpoints_each_request_begins_with_the_previous_one_byte_for_byte():
    store = InMemoryThreadStore()
    thread = new_thread(store)
    compactor = Compactor(Scripted(), limit=60, trigger=48, keep=12)
    previous: list | None = None
    checkpoints_seen = 0
    for n in range(60):
        store.append(thread.id, exchange(n))
        request = json.dumps(dump_messages(thread.read(store, compactor.window())))
        if previous is not None and len(store.checkpoints(thread.id)) == checkpoints_seen:
            assert request.startswith(previous[:-1]), f"turn {n}: the prefix changed without a checkpoint"
        checkpoints_seen = len(store.checkpoints(thread.id))
        previous = request
        compactor.compact(store, thread)
    assert checkpoints_seen > 3


def test_cache_breakpoints_fall_on_the_summary_and_the_ends_of_requests():
    store = InMemoryThreadStore()
    thread = new_thread(store, *(m for n in range(6) for m in exchange(n, size=400)))
    compactor = Compactor(Scripted(), limit=20, trigger=16, keep=6)
    compactor.compact(store, thread)
    got = thread.read(store, compactor.window())
    marked = place_cache_breakpoints(got, model="anthropic/claude-sonnet-4-5", min_tokens=1)
    at = [i for i, m in enumerate(marked) if m.cache_control is not None]
    assert at[0] == 1  # the lead and the summary: stable until the next checkpoint
    assert is_summary(marked[1])
    assert at[-1] == len(marked) - 1


def test_each_message_is_counted_once_per_counter_across_turns():
    store = InMemoryThreadStore()
    thread = new_thread(store)
    counted: list[str] = []

    def counter(message):
        counted.append(message.model_dump_json())
        return weight(message)

    compactor = Compactor(Scripted(), limit=400, message_token_counter=counter, counter_name="w")
    for n in range(30):
        store.append(thread.id, exchange(n))
        thread.read(store, compactor.window())
        compactor.compact(store, thread)
    stored = [m.model_dump_json() for m in store.messages(thread.id)]
    summaries = [c.summary.model_dump_json() for c in store.checkpoints(thread.id)]
    # Every message counted once (the lead, read each turn, and summaries are counted where used).
    assert sorted(c for c in counted if c in stored[1:]) == sorted(stored[1:])
    assert store.token_counts(thread.id, "w")[1:] == [weight(m) for m in store.messages(thread.id)[1:]]
    assert summaries


def test_the_windows_state_round_trips_with_its_checkpoint():
    store = InMemoryThreadStore()
    thread = new_thread(store, *(m for n in range(6) for m in exchange(n)))
    compactor = Compactor(Scripted(), limit=20, trigger=16, keep=6)
    compactor.compact(store, thread)
    window = compactor.window()
    got = thread.read(store, window)
    fresh = compactor.window()
    fresh.load_state(json.loads(json.dumps(window.save_state())))
    assert fresh.get_messages() == got
    assert fresh.checkpoint == window.checkpoint


def test_compaction_is_due_only_over_the_trigger():
    store = InMemoryThreadStore()
    thread = new_thread(store, *exchange(0))
    compactor = Compactor(Scripted(), limit=20, trigger=16, keep=6)
    assert compactor.compact(store, thread).due is False
    store.append(thread.id, [m for n in range(1, 5) for m in exchange(n)])
    window = compactor.window()
    thread.read(store, window)
    assert window.compaction_due()
    assert compactor.compact(store, thread).written


@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_a_forced_compaction_says_it_was_due_even_with_nothing_after_the_instructions(flavour):
    # Compaction.due is "whether compaction was due (or forced)": a forced call on a thread that holds only
    # its leading system message has nothing to summarize, writes nothing, and still was forced (issue 42).
    store = InMemoryThreadStore()
    thread = new_thread(store, SystemMessage(content="Be brief."))
    compactor = Compactor(Scripted(), limit=20, trigger=16, keep=6)
    if flavour == "sync":
        done, unforced = compactor.compact(store, thread, force=True), compactor.compact(store, thread)
    else:
        async_store = AsyncInMemoryThreadStore()
        thread_id = asyncio.run(async_store.create_thread())
        asyncio.run(async_store.append(thread_id, [SystemMessage(content="Be brief.")]))
        done = asyncio.run(compactor.acompact(async_store, thread_id, force=True))
        unforced = asyncio.run(compactor.acompact(async_store, thread_id))
    assert (done.due, done.written) == (True, ())
    assert (unforced.due, unforced.written) == (False, ())


def test_settings_that_cannot_work_are_refused_by_name():
    with pytest.raises(ValueError, match="keep <= trigger <= limit"):
        CompactingContext(10, trigger=4, keep=5)
    with pytest.raises(ValueError, match="keep <= trigger <= limit"):
        CompactingContext(10, trigger=11)
    assert (CompactingContext(1).trigger, CompactingContext(1).keep) == (1, 1)
    with pytest.raises(TypeError, match="one counter at most"):
        CompactingContext(10, model="gpt-4o-mini", message_token_counter=weight)
    with pytest.raises(ValueError, match="timeout"):
        Compactor(Scripted(), limit=10, timeout=0)


def test_bad_arguments_are_refused_with_an_invalid_argument_error_naming_them_and_nothing_is_written():
    store, async_store = InMemoryThreadStore(), AsyncInMemoryThreadStore()
    thread = new_thread(store, *(m for n in range(6) for m in exchange(n)))
    compactor = Compactor(Scripted(), limit=20, trigger=16, keep=6)
    before = store.records(thread.id)

    def refused(call, argument, match):
        with pytest.raises(InvalidArgumentError, match=match) as caught:
            call()
        assert caught.value.argument == argument

    # A store of the other flavour used to fail inside the read with an AttributeError (a coroutine has no
    # .kind) or a TypeError (None awaited): refused by name before anything is read, with the method to use.
    refused(lambda: compactor.compact(async_store, thread), "store", r"await compactor\.acompact")
    refused(lambda: asyncio.run(compactor.acompact(store, thread)), "store", r"call compactor\.compact")
    refused(lambda: compactor.compact(object(), thread), "store", "no add_checkpoint")
    refused(lambda: compactor.compact(store, thread, force="no"), "force", "True or False")  # "no" is truthy
    assert store.records(thread.id) == before
    assert store.checkpoints(thread.id) == []
    refused(lambda: Compactor(None, limit=10), "summarizer", "not a NoneType")
    refused(lambda: Compactor("", limit=10), "model", "litellm model string")
    refused(lambda: LiteLLMSummarizer("m", max_input_tokens=0), "max_input_tokens", "at least 1")
    refused(lambda: LiteLLMSummarizer("m").messages("hi"), "request", "SummaryRequest")
    refused(lambda: CompactingContext(10, token_counter=len, counter_name=""), "counter_name", "non-empty")
    refused(lambda: summary_message(None), "text", "a str")
    with pytest.raises(MessageTypeError, match="summary_text"):
        summary_text({"role": "system", "content": "x"})
    with pytest.raises(MessageTypeError, match="the message to count"):
        CompactingContext(10).count_tokens({"role": "user", "content": "hi"})  # a KeyError before


def test_a_summary_result_whose_text_is_not_a_string_is_a_summarizer_error():
    store = InMemoryThreadStore()
    thread = new_thread(store, *(m for n in range(6) for m in exchange(n)))
    compactor = Compactor(lambda request: SummaryResult(text=None), limit=20, trigger=16, keep=6)
    with pytest.raises(SummarizerError, match="SummaryResult whose text is a NoneType") as caught:
        compactor.compact(store, thread)  # an AttributeError (None.strip) before
    assert caught.value.reason == "raised"
    assert store.checkpoints(thread.id) == []


def test_the_async_compactor_awaits_an_async_summarizer_and_stores_what_the_sync_one_would():
    async def main():
        store = AsyncInMemoryThreadStore()
        thread = LocalThread()
        await store.save_thread(thread)
        await store.append(
            thread.id, [SystemMessage(content="Be brief."), *(m for n in range(6) for m in exchange(n))]
        )

        async def summarizer(request):
            await asyncio.sleep(0)
            return SummaryResult(text="short", model="scripted", input_tokens=7, output_tokens=1)

        compactor = Compactor(summarizer, limit=20, trigger=16, keep=6)
        [checkpoint] = (await compactor.acompact(store, thread)).written
        assert (checkpoint.upto, checkpoint.provenance.model, checkpoint.provenance.input_tokens) == (
            21,
            "scripted",
            7,
        )
        got = await thread.aread(store, compactor.window())
        assert got[1] == summary_message("short")
        sync_store = InMemoryThreadStore()
        sync_thread = new_thread(sync_store, *(m for n in range(6) for m in exchange(n)))
        compactor.compact(sync_store, sync_thread)  # an async summarizer from sync code: run to its end
        assert sync_thread.read(sync_store, compactor.window())[1:] == got[1:]

    asyncio.run(main())


def test_reference_read_and_the_windows_own_agree_without_a_store():
    window = CompactingContext(8, trigger=6, keep=2)
    history = [SystemMessage(content="s"), *(m for n in range(5) for m in exchange(n))]
    for message in history:
        window.add_message(message)
    assert window.get_messages() == reference_read(window, history, None)
