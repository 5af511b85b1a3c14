"""What the compaction tests share: the read recomputed from the whole thread (from the rules, not from the
package's code), the invariants every compaction keeps, a scripted summarizer, and a conversation driven
turn by turn through a store, reading and compacting after each turn (sync, or async through
``tests.stores._backends.Blocking``)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from messages import (
    AIMessage,
    Checkpoint,
    LocalThread,
    Message,
    SummarizerError,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    validate_conversation,
)
from messages import strategies as ms
from messages.compaction import CompactingContext, Compactor, SummaryRequest, is_summary, summary_text
from tests.stores._backends import is_async
from tests.test_context import flat, newest_fitting, split
from tests.test_protocol_properties import segments


def weight(message: Message) -> int:
    """A cheap stand-in token count: one token per 20 characters of the dump (at least 1)."""
    return max(1, len(message.model_dump_json()) // 20)


def reference_read(window: CompactingContext, thread: Sequence[Message], newest: Checkpoint | None) -> list:
    """The compacted read from the whole thread and its newest checkpoint, by the rules: the leading system
    messages, the summary, and the newest whole units after the checkpoint's position that fit (the newest
    always); when the budget cut them, from the first user turn among them."""
    lead, _ = split(thread)
    floor = newest.upto if newest is not None and newest.upto > len(lead) else len(lead)
    summary = [newest.summary] if newest is not None and newest.upto > len(lead) else []
    units = segments(thread[floor:])
    if not units:
        return [*lead, *summary]
    if window.measure == "tokens":
        budget = window.limit - sum(map(window.count_tokens, [*lead, *summary]))

        def cost(unit: list[Message]) -> float:
            return sum(map(window.count_tokens, unit))
    else:
        budget = window.limit - len(summary)

        def cost(unit: list[Message]) -> float:
            return len(unit)

    kept = newest_fitting(units, cost, budget)
    if len(kept) < len(units):
        first_user = next((i for i, unit in enumerate(kept) if isinstance(unit[0], UserMessage)), None)
        if first_user:
            kept = kept[first_user:]
    return [*lead, *summary, *flat(kept)]


def check_checkpoints(thread: Sequence[Message], checkpoints: Sequence[Checkpoint]) -> None:
    """Every checkpoint cuts between whole exchanges and summarizes no unanswered call, and the chain covers
    the thread after its leading system messages once, in order (broken threads included)."""
    lead, _ = split(thread)
    previous: Checkpoint | None = None
    for checkpoint in checkpoints:
        assert checkpoint.base == (previous.id if previous else None), "the chain is broken"
        assert checkpoint.upto > (previous.upto if previous else len(lead)), "a span is empty or goes back"
        if checkpoint.upto < len(thread):
            assert not isinstance(thread[checkpoint.upto], ToolMessage), "a result is cut from its call"
        # Each exchange it summarizes answers all its calls within itself: none summarized unanswered, none
        # cut from a result after the cut.
        for unit in segments(thread[len(lead) : checkpoint.upto]):
            calls = {c.id for c in getattr(unit[0], "tool_calls", None) or ()}
            assert calls <= {m.tool_call_id for m in unit if isinstance(m, ToolMessage)}, unit
        assert is_summary(checkpoint.summary)
        previous = checkpoint


class Scripted:
    """A summarizer that records each request and says what it covered, briefly (so it is never longer
    than what it replaces)."""

    def __init__(self) -> None:
        self.requests: list[SummaryRequest] = []

    def __call__(self, request: SummaryRequest) -> str:
        self.requests.append(request)
        return f"S{request.start}-{request.upto}"


WINDOWS = st.one_of(
    st.builds(
        lambda limit: CompactingContext(limit, trigger=max(2, limit * 3 // 4), keep=max(1, limit // 4)),
        st.integers(4, 16),
    ),
    st.builds(
        lambda limit: CompactingContext(
            limit,
            trigger=limit * 3 // 4,
            keep=limit // 4,
            message_token_counter=weight,
            counter_name="weight-per-20-chars",
        ),
        st.integers(60, 400),
    ),
)
"""Compacting windows measured in messages and in tokens (a named counter, so counts are saved)."""

_pending_ids = itertools.count()


@st.composite
def turns(draw: st.DrawFn) -> list[list[Message]]:
    """A conversation cut into turns (appended one at a time), now and then with a call left pending for
    a turn or two (as an approval would be) before its result arrives."""
    conversation = draw(
        st.one_of(
            ms.conversations(max_turns=14, max_parallel_calls=3, extensions=False),
            ms.broken_conversations(max_turns=14, max_parallel_calls=3, extensions=False),
        )
    )
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(conversation) - 1)), max_size=10)))
    chunks = [conversation[a:b] for a, b in itertools.pairwise([0, *cuts, len(conversation)]) if a < b]
    if draw(st.booleans()) and chunks:
        call = ToolCall(id=f"pending_{next(_pending_ids)}", name="approve", arguments="{}")
        chunks.append([UserMessage(content="go on"), AIMessage(content=None, tool_calls=[call])])
        chunks.append([ToolMessage.for_call(call, "approved"), AIMessage(content="done")])
    return chunks


def read(store: Any, thread: LocalThread, window: CompactingContext) -> list[Message]:
    """``thread.read(store, window)``, or ``await thread.aread(...)`` on an async store itself."""
    if is_async(store):
        return store._run(thread.aread(store.inner, window))  # type: ignore[no-any-return]
    return thread.read(store, window)


def compact(store: Any, compactor: Compactor, thread: LocalThread, force: bool = False) -> Any:
    """``compactor.compact(store, thread)``, or ``await compactor.acompact(...)`` on an async store."""
    if is_async(store):
        return store._run(compactor.acompact(store.inner, thread, force=force))
    return compactor.compact(store, thread, force=force)


def run_conversation(
    store: Any, window: CompactingContext, chunks: list[list[Message]], forced: list[bool]
) -> None:
    """Append the turns one at a time; after each, read (checked against the read recomputed from the
    whole thread, and against the protocol whenever the thread keeps it) and compact (forced now and
    then), checking that compaction changed no message record and left the chain whole."""
    summarizer = Scripted()
    compactor = Compactor(
        summarizer,
        limit=window.limit,
        trigger=window.trigger,
        keep=window.keep,
        message_token_counter=window._message_counter,
        counter_name=window._counter_name if window._message_counter else None,
    )
    thread = LocalThread()
    store.save_thread(thread)
    store.append(thread.id, SystemMessage(content="You are terse."))
    history: list[Message] = [SystemMessage(content="You are terse.")]
    for number, chunk in enumerate(chunks):
        store.append(thread.id, chunk)
        history += chunk
        got = read(store, thread, compactor.window())
        expected = reference_read(window, history, store.latest_checkpoint(thread.id))
        assert got == expected, (number, got, expected, store.checkpoints(thread.id))
        if _keeps_protocol(history):
            validate_conversation(got)
        assert sum(map(is_summary, got)) <= 1  # one summary, however long the chain
        records = store.records(thread.id)
        chain = store.checkpoints(thread.id)
        refused = None
        try:
            compact(store, compactor, thread, force=forced[number % len(forced)])
        except SummarizerError as exc:
            refused = exc
        if refused is not None:
            # A span so short that even a few words of summary outweigh it: refused, nothing written.
            assert refused.reason == "too_long", refused
            assert store.checkpoints(thread.id) == chain
            summarizer.requests.pop()
        assert store.records(thread.id) == records, "compaction changed a message record"
        check_checkpoints(history, store.checkpoints(thread.id))
    # Each summary request held exactly the base's summary and the messages from its position on.
    for request, checkpoint in zip(summarizer.requests, store.checkpoints(thread.id), strict=True):
        assert request.upto == checkpoint.upto
        assert request.messages == history[request.start : request.upto]
    for previous, request in itertools.pairwise(summarizer.requests):
        assert request.previous == f"S{previous.start}-{previous.upto}"
        assert request.start == previous.upto


def _keeps_protocol(history: Sequence[Message]) -> bool:
    try:
        validate_conversation(list(history))
    except ValueError:
        return False
    return True


def summary_of(checkpoint: Checkpoint) -> str:
    return summary_text(checkpoint.summary)
