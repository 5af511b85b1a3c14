"""A bot's turn against the stores (issue 38): a window read is one statement, a read writes nothing, the
counts a read made are saved by the next append in its own transaction (and only for the message counted),
each message is counted once per counter across turns, and a compactor with nothing due reads and writes
nothing, without ever missing a compaction that is due."""

from __future__ import annotations

import inspect
import itertools
import re
import sqlite3
import uuid
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from messages import (
    AIMessage,
    CorruptDataError,
    InMemoryThreadStore,
    LocalThread,
    Message,
    MessageExistsError,
    SQLiteThreadStore,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from messages import strategies as ms
from messages.compaction import CompactingContext, Compactor, summary_message
from messages.context import BufferedContext, HeadAndTailContext, TokenLimitedContext
from messages.errors import SummarizerError
from tests.compaction_cases import compact, read
from tests.stores._backends import is_async


def exchange(n: int) -> list[Message]:
    call = ToolCall(id=f"call_{n}", name="lookup", arguments=f'{{"n": {n}}}')
    return [
        UserMessage(content=f"question {n}"),
        AIMessage(content=None, tool_calls=[call]),
        ToolMessage(tool_call_id=call.id, content=f"result {n}"),
        AIMessage(content=f"answer {n}"),
    ]


SYSTEM = SystemMessage(content="Be brief.")
LONG = [SYSTEM, *(m for n in range(500) for m in exchange(n))]  # 2,001 messages


def chars(message: Message) -> int:
    """A token counter: a quarter of the message's JSON."""
    return max(1, len(message.model_dump_json()) // 4)


def summarize(request: Any) -> str:
    return f"{len(request.messages)} messages summarized."


class Statements:
    """The SQL statements a SQLite store's connection (this thread's) runs, as SQLite traces them."""

    def __init__(self, store: SQLiteThreadStore) -> None:
        self.seen: list[str] = []
        store._connection().set_trace_callback(self.seen.append)

    def take(self) -> list[str]:
        """The statements run since the last ``take``, each on one line."""
        taken = [" ".join(statement.split()) for statement in self.seen]
        self.seen.clear()
        return taken


@pytest.fixture
def sqlite_store(tmp_path):
    store = SQLiteThreadStore(tmp_path / "turn.db")
    yield store
    store.close()


def long_thread(store: Any) -> LocalThread:
    thread = LocalThread()
    store.save_thread(thread)
    store.append(thread.id, LONG)
    return thread


def compacted_thread(store: Any) -> LocalThread:
    """``LONG`` with a checkpoint 20 messages before its end (on a user turn): nothing due for a while."""
    thread = long_thread(store)
    store.add_checkpoint(thread.id, summary_message("Questions 0 to 494."), upto=len(LONG) - 20, base=None)
    return thread


WINDOWS = {
    "buffered": lambda: BufferedContext(50),
    "head-and-tail": lambda: HeadAndTailContext(10, 40),
    "token-limited": lambda: TokenLimitedContext(2_000, message_token_counter=chars),
    "compacting, messages": lambda: Compactor(summarize, limit=60).window(),
    "compacting, tokens": lambda: Compactor(
        summarize, limit=2_000, message_token_counter=chars, counter_name="chars/4"
    ).window(),
}


@pytest.mark.parametrize("make", WINDOWS.values(), ids=WINDOWS.keys())
def test_a_window_read_of_a_sqlite_thread_is_one_statement_that_writes_nothing(sqlite_store, make):
    thread = long_thread(sqlite_store)
    statements = Statements(sqlite_store)
    for _ in range(2):  # the first read counts messages, the second finds the counts
        window = make()
        got = thread.read(sqlite_store, window)
        [statement] = statements.take()
        assert statement.startswith("SELECT -2, kind, length"), statement
        assert got[-1] == LONG[-1]
        assert len(got) < len(LONG)


def test_a_token_budget_past_the_first_page_reads_again_with_a_larger_page(sqlite_store):
    thread = long_thread(sqlite_store)
    statements = Statements(sqlite_store)
    # About 300 messages fit: the first page (256 rows from the end) is not enough, the second (512) is.
    got = thread.read(sqlite_store, TokenLimitedContext(5_000, message_token_counter=chars))
    taken = statements.take()
    assert len(taken) == 2, taken
    assert all(s.startswith("SELECT -2, kind, length") for s in taken), taken
    assert 256 < len(got) < 512
    assert got == [SYSTEM, *LONG[len(LONG) - len(got) + 1 :]]


def test_a_turn_writes_once_per_append_and_saves_the_counts_in_the_second_appends_transaction(
    sqlite_store,
):
    thread = compacted_thread(sqlite_store)
    compactor = Compactor(summarize, limit=2_000, message_token_counter=chars, counter_name="chars/4")
    statements = Statements(sqlite_store)
    for turn in range(3):
        thread.append(sqlite_store, UserMessage(content=f"one more question {turn}"))
        first = statements.take()
        thread.read(sqlite_store, compactor.window())
        reading = statements.take()
        thread.append(sqlite_store, AIMessage(content=f"one more answer {turn}"))
        second = statements.take()
        done = compactor.compact(sqlite_store, thread)
        compacting = statements.take()
        assert not done.due
        assert compacting == []  # nothing due: nothing read, nothing written
        assert len(reading) == 1
        assert not any(re.match("(BEGIN|INSERT|UPDATE|DELETE)", s) for s in reading), reading
        for appended in (first, second):
            assert (appended[0], appended[-1]) == ("BEGIN IMMEDIATE", "COMMIT"), appended
            assert sum(s.startswith("BEGIN") for s in appended) == 1, appended
        saved = [s for s in second if s.startswith("INSERT INTO thread_store_token_counts")]
        # The first read counts every message since the checkpoint; later ones only the new messages (the
        # user's, and the last reply, which the compactor counted: this process's count, saved now).
        assert len(saved) == (21 if turn == 0 else 2), second
        assert not any(s.startswith("INSERT INTO thread_store_token_counts") for s in first), first
    length = sqlite_store.thread_info(thread.id).length
    counts = sqlite_store.token_counts(thread.id, "chars/4", len(LONG) - 20, length - 1)
    assert counts == [chars(m) for m in sqlite_store.messages(thread.id, len(LONG) - 20, length - 1)]


def test_a_count_is_saved_only_for_the_message_it_counted(sqlite_store):
    thread = long_thread(sqlite_store)
    window = Compactor(summarize, limit=2_000, message_token_counter=chars, counter_name="chars/4").window()
    thread.read(sqlite_store, window)
    # A count kept for a position whose message is no longer the one counted (its id differs): it is not
    # saved, whatever the next append does; the others are.
    sqlite_store._memo.defer_counts(thread.id, "chars/4", {0: 9_999}, {0: "not-the-message-counted"})
    thread.append(sqlite_store, UserMessage(content="next"))
    length = len(LONG)
    assert sqlite_store.token_counts(thread.id, "chars/4", 0, 1) == [None]
    assert sqlite_store.token_counts(thread.id, "chars/4", length - 5, length) == [
        chars(m) for m in LONG[-5:]
    ]


def test_a_read_saves_no_count_itself_and_a_failed_append_keeps_them_for_the_next(sqlite_store):
    thread = compacted_thread(sqlite_store)
    named = Compactor(summarize, limit=2_000, message_token_counter=chars, counter_name="chars/4").window()
    thread.read(sqlite_store, named)
    assert set(sqlite_store.token_counts(thread.id, "chars/4")) == {None}
    held = sqlite_store.records(thread.id, -1)[0].id
    with pytest.raises(MessageExistsError):  # nothing written: the counts wait for the next append
        sqlite_store.append(thread.id, UserMessage(content="again"), ids=[held])
    assert set(sqlite_store.token_counts(thread.id, "chars/4")) == {None}
    assert sqlite_store.append(thread.id, UserMessage(content="next")) == range(len(LONG), len(LONG) + 1)
    assert sqlite_store.token_counts(thread.id, "chars/4", -21, -1) == [chars(m) for m in LONG[-20:]]


@pytest.mark.parametrize(
    "make",
    [
        lambda counter, name: TokenLimitedContext(1_000, message_token_counter=counter),
        lambda counter, name: CompactingContext(1_000, message_token_counter=counter),
        # A name says the counter counts as every counter of that name does: a name of this test's own.
        lambda counter, name: CompactingContext(1_000, message_token_counter=counter, counter_name=name),
    ],
    ids=["token-limited", "compacting", "compacting, named"],
)
def test_each_message_is_counted_once_across_turns_of_fresh_windows(store, make):
    counted: Counter[str] = Counter()

    def counter(message: Message) -> int:
        counted[message.model_dump_json()] += 1
        return chars(message)

    thread = LocalThread()
    store.save_thread(thread)
    store.append(thread.id, [SYSTEM, *(m for n in range(40) for m in exchange(n))])
    name = f"counted-{uuid.uuid4().hex}"
    for turn in range(6):
        store.append(thread.id, UserMessage(content=f"and {turn}?"))
        read(store, thread, make(counter, name))
        store.append(thread.id, AIMessage(content=f"so {turn}."))
    assert len(counted) > 40, counted
    assert max(counted.values()) == 1, counted.most_common(3)


@pytest.mark.parametrize("measure", ["messages", "tokens"])
def test_a_compactor_with_nothing_due_makes_no_store_call(store, measure):
    kwargs = {"message_token_counter": chars, "counter_name": "chars/4"} if measure == "tokens" else {}
    compactor = Compactor(summarize, limit=400 if measure == "messages" else 20_000, **kwargs)
    thread = LocalThread()
    store.save_thread(thread)
    store.append(thread.id, [SYSTEM, *(m for n in range(20) for m in exchange(n))])
    calls = Calls(store.inner if is_async(store) else store)
    for turn in range(5):
        store.append(thread.id, UserMessage(content=f"and {turn}?"))
        read(store, thread, compactor.window())
        store.append(thread.id, AIMessage(content=f"so {turn}."))
        calls.made.clear()
        if is_async(store):
            done = store._run(compactor.acompact(calls, thread))
        else:
            done = compactor.compact(calls, thread)
        assert not done.due
        assert calls.made == []
    # Forced, or with a window read of another thread, it reads: the calls are seen.
    assert compact(store, compactor, thread, force=True).written


def test_a_compactor_reads_when_another_writer_appended_after_the_windows_read(tmp_path):
    path = tmp_path / "shared.db"
    with SQLiteThreadStore(path) as ours, SQLiteThreadStore(path) as theirs:  # two processes' stores
        thread = compacted_thread(ours)
        compactor = Compactor(summarize, limit=60)  # trigger 48: the 20 since the checkpoint are well under
        thread.read(ours, compactor.window())
        theirs.append(thread.id, [UserMessage(content=f"spam {n}") for n in range(30)])
        ours.append(thread.id, AIMessage(content="our answer"))  # after theirs: the log cannot say
        statements = Statements(ours)
        done = compactor.compact(ours, thread)
        assert statements.take(), "the compactor must read: another writer appended in between"
        assert done.written  # 51 messages since the checkpoint: over the trigger


class Calls:
    """A store that records every public method called on it (the async store's awaited)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.made: list[str] = []

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._store, name)
        if name.startswith("_") or not callable(value):
            return value
        if inspect.iscoroutinefunction(value):

            async def awaited(*args: Any, **kwargs: Any) -> Any:
                self.made.append(name)
                return await value(*args, **kwargs)

            return awaited

        def called(*args: Any, **kwargs: Any) -> Any:
            self.made.append(name)
            return value(*args, **kwargs)

        return called


# -- the decision without a read is the one a read gives --------------------------------------------------

_ids = itertools.count()


@st.composite
def turns(draw: st.DrawFn) -> list[list[Message]]:
    """Turns of a conversation (each appended after a read), some long enough to make compaction due."""
    conversation = draw(ms.conversations(max_turns=12, max_parallel_calls=3, extensions=False))
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(conversation) - 1)), max_size=8)))
    return [conversation[a:b] for a, b in itertools.pairwise([0, *cuts, len(conversation)]) if a < b]


# Found by hypothesis under load: a due compaction whose one-message span (an empty question) counts less
# than this summarizer's words, refused as too long.
_ODD_ARGUMENTS = (
    '{"": null, "\\u001f\\u001f\\u001f\\u000b\\u0007\\u0007\\ud800\\udc00": null, '
    '"00\\u001f\\u001f\\u001f\\u001f\\u001f\\u001f\\u001f\\u0007\\ud800\\udc00\\ud800\\udc00": '
    '{"\\u001f\\ud800\\udc00\\ud800\\udc00": null}}'
)
_TOO_LONG_CASE = [
    [UserMessage(content="")],
    [
        AIMessage(
            tool_calls=[
                ToolCall(id="toolu_000000000000000000000000", name="kI0y40_KkY5x", arguments=_ODD_ARGUMENTS)
            ]
        )
    ],
    [ToolMessage(tool_call_id="toolu_000000000000000000000000", content="\x13")],
    [
        AIMessage(tool_calls=[ToolCall(id="call_000000000000000000000000", name="QEmuD", arguments="")]),
        ToolMessage(tool_call_id="call_000000000000000000000000", content="{}"),
    ],
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunks=turns(), limit=st.integers(4, 30), tokens=st.booleans())
@example(chunks=_TOO_LONG_CASE, limit=4, tokens=True)
def test_a_compactor_never_skips_a_compaction_that_reading_the_thread_finds_due(chunks, limit, tokens):
    store = InMemoryThreadStore()
    kwargs: dict[str, Any] = {"message_token_counter": chars, "counter_name": "c"} if tokens else {}
    scale = 40 if tokens else 1
    compactor = Compactor(summarize, limit=limit * scale, **kwargs)
    judge = Compactor(summarize, limit=limit * scale, **kwargs)  # never reads through a window: always reads
    thread = LocalThread(id=f"t{next(_ids)}")
    store.save_thread(thread)
    store.append(thread.id, SystemMessage(content="You are terse."))
    for chunk in chunks:
        thread.read(store, compactor.window())
        store.append(thread.id, chunk)
        not_due = compactor._not_due(store, thread.id)
        try:
            due = judge.compact(store, thread).due
        except SummarizerError as error:
            # The summary came out longer than the span it would replace (a span of one short message:
            # this summarizer's fixed words count more): refused, nothing written, and the compaction
            # was due, or no summary would have been asked for.
            if error.reason != "too_long":
                raise
            due = True
        assert not (not_due and due), "the compactor would have skipped a due compaction"


def test_the_checkpoint_written_by_another_compactor_is_read_by_the_next_turn(sqlite_store):
    thread = compacted_thread(sqlite_store)
    ours = Compactor(summarize, limit=60)
    thread.read(sqlite_store, ours.window())
    sqlite_store.append(thread.id, AIMessage(content="answer"))
    # Another compactor writes a checkpoint meanwhile; ours, with nothing due by what it read, writes none.
    summary = summary_message("Everything before, summarized.")
    base = sqlite_store.latest_checkpoint(thread.id)
    sqlite_store.add_checkpoint(thread.id, summary, upto=len(LONG) - 16, base=base.id)
    assert not ours.compact(sqlite_store, thread).due
    window = ours.window()
    got = thread.read(sqlite_store, window)
    assert got[1] == summary
    assert window.checkpoint is not None
    assert window.checkpoint.base == base.id


def test_sqlite_trace_sees_the_store_connection(sqlite_store):
    # The statement counts above rely on tracing this thread's connection: a read of it shows up.
    statements = Statements(sqlite_store)
    sqlite_store.threads()
    assert statements.take() == ["SELECT id FROM thread_store_threads ORDER BY ordinal"]
    assert isinstance(sqlite_store._connection(), sqlite3.Connection)


def test_minted_ids_keep_their_format_and_sort_in_the_order_they_were_minted(store):
    thread = LocalThread()
    store.save_thread(thread)
    for n in range(5):
        store.append(thread.id, [UserMessage(content=f"q{n}"), AIMessage(content=f"a{n}")])
        store.append(thread.id, UserMessage(content=f"more {n}"), ids=[f"given-{n}"])
    minted = [r.id for r in store.records(thread.id) if not r.id.startswith("given-")]
    assert len(minted) == 10
    assert all(re.fullmatch("[0-9a-f]{32}", i) for i in minted), minted
    assert minted == sorted(minted)  # time-ordered: the thread's index of ids takes each at its end
    assert {uuid.UUID(i).version for i in minted} == {7}


def test_a_damaged_or_missing_row_in_the_window_is_named_and_one_outside_it_is_not_read(tmp_path):
    path = tmp_path / "damaged.db"
    with SQLiteThreadStore(path) as store:
        thread = long_thread(store)
        with sqlite3.connect(path) as raw:
            raw.execute(
                'UPDATE thread_store_messages SET message = \'{"role": "user", "content": \' '
                "WHERE thread_id = ? AND position = ?",
                (thread.id, len(LONG) - 3),
            )
            raw.execute(
                "UPDATE thread_store_messages SET message = 'not json' WHERE thread_id = ? AND position = ?",
                (thread.id, len(LONG) - 60),  # in the page the read fetches, not in the window
            )
        with pytest.raises(CorruptDataError) as caught:
            thread.read(store, BufferedContext(10))
        assert caught.value.position == len(LONG) - 3
        assert "is not valid JSON" in str(caught.value)
        with sqlite3.connect(path) as raw:
            raw.execute(
                "UPDATE thread_store_messages SET message = ? WHERE thread_id = ? AND position = ?",
                (LONG[-3].model_dump_json(), thread.id, len(LONG) - 3),
            )
        full = BufferedContext(10, LONG)
        assert thread.read(store, BufferedContext(10)) == full.get_messages()  # the other row: not parsed
        with sqlite3.connect(path) as raw:
            raw.execute(
                "DELETE FROM thread_store_messages WHERE thread_id = ? AND position = ?", (thread.id, 1)
            )
        with pytest.raises(CorruptDataError, match="position 1: the message is missing"):
            thread.read(store, BufferedContext(10))  # the lead's page: every position must be there
