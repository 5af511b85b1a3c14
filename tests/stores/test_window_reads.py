"""Window-aware reads (``LocalThread.read(store, window)`` and ``aread``): the store is asked only for what
the window can return, and the answer is the one the window gives with every message of the thread added
(the full read), on every backend in both flavours, for generated threads and every window; the window
goes on from there as the full one would, and its saved state round-trips."""

from __future__ import annotations

import json
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from messages import (
    AIMessage,
    InMemoryThreadStore,
    LocalThread,
    RemoteThread,
    SQLiteThreadStore,
    SystemMessage,
    ThreadKindError,
    ThreadNotFoundError,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from messages import _window as window_module
from messages import strategies as ms
from messages.context import BufferedContext, HeadAndTailContext, TokenLimitedContext, UnboundedContext
from messages.stores._turns import TurnMemo
from tests.stores._backends import is_async
from tests.test_context import BROKEN_HISTORIES, CONTEXTS, HISTORIES, same_settings


def full_window(context, history):
    """The window with every message of ``history`` added: what ``read`` gave before it was window-aware."""
    full = same_settings(context)
    for message in history:
        full.add_message(message)
    return full


def read(store, thread, window):
    """``thread.read(store, window)``, or ``await thread.aread(...)`` on the async store itself."""
    if is_async(store):
        return store._run(thread.aread(store.inner, window))
    return thread.read(store, window)


def check_window_read(store, context, history, more):
    thread = LocalThread()
    store.save_thread(thread)  # a new thread per example: the store is shared by the examples
    if history:
        store.append(thread.id, history)
    full = full_window(context, history)
    window = same_settings(context)
    window.add_message(UserMessage(content="left over from another thread"))
    assert read(store, thread, window) == full.get_messages()
    # Its saved state (version 2 when the read left messages out) loads into a fresh window, through JSON.
    fresh = same_settings(context)
    fresh.load_state(json.loads(json.dumps(window.save_state())))
    assert fresh.get_messages() == full.get_messages()
    # Messages added afterwards move each window as they move the full one.
    for message in more:
        window.add_message(message)
        fresh.add_message(message)
        full.add_message(message)
        assert window.get_messages() == full.get_messages() == fresh.get_messages()


SETTINGS = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
EXAMPLES = given(
    context=CONTEXTS,
    history=st.one_of(HISTORIES, BROKEN_HISTORIES),
    more=st.lists(ms.messages(extensions=False), max_size=4),
)


@settings(SETTINGS, max_examples=10)
@EXAMPLES
def test_a_window_read_gives_what_the_full_read_gives_and_goes_on_as_it_would(store, context, history, more):
    check_window_read(store, context, history, more)


@pytest.mark.parametrize("page", [1, 3])
@SETTINGS
@EXAMPLES
def test_the_same_holds_when_the_reads_go_a_few_messages_at_a_time(monkeypatch, page, context, history, more):
    # Generated threads are shorter than a page (64): pages of 1 and 3 messages (and roles) put a page's
    # end at every place a cut can fall. The reads are the same generator whatever the store.
    monkeypatch.setattr(window_module, "_PAGE", page)
    monkeypatch.setattr(window_module, "_LEAD_PAGE", page)
    check_window_read(InMemoryThreadStore(), context, history, more)


class Counting:
    """A store that records the positions each read asks for."""

    def __init__(self, store):
        self.store = store
        self.asked: list[tuple[str, int, int]] = []

    def thread_info(self, thread_id):
        return self.store.thread_info(thread_id)

    def roles(self, thread_id, start=0, stop=None):
        self.asked.append(("roles", start, stop))
        return self.store.roles(thread_id, start, stop)

    def messages(self, thread_id, start=0, stop=None):
        self.asked.append(("messages", start, stop))
        return self.store.messages(thread_id, start, stop)

    def count(self, what):
        return sum(stop - start for kind, start, stop in self.asked if kind == what)


def exchange(n: int) -> list:
    call = ToolCall(id=f"call_{n}", name="lookup", arguments="{}")
    return [
        UserMessage(content=f"question {n}"),
        AIMessage(content=None, tool_calls=[call]),
        ToolMessage(tool_call_id=call.id, content=f"result {n}"),
        AIMessage(content=f"answer {n}"),
    ]


LONG = [SystemMessage(content="Be brief."), *(m for n in range(500) for m in exchange(n))]  # 2,001 messages


@pytest.mark.parametrize(
    ("make", "most_messages", "most_roles"),
    [
        pytest.param(lambda: BufferedContext(50), 1 + 50, 8 + 64, id="buffered"),
        pytest.param(lambda: HeadAndTailContext(10, 40), 1 + 10 + 40, 8 + 11 + 64, id="head-and-tail"),
        # Pages of messages from the end: 64, then 128, until 2,000 characters are spent.
        pytest.param(
            lambda: TokenLimitedContext(2_000, message_token_counter=lambda m: len(m.model_dump_json())),
            1 + 64 + 128,
            8,
            id="token-limited",
        ),
    ],
)
def test_a_window_read_asks_the_store_for_what_the_window_keeps_not_the_thread(
    make, most_messages, most_roles
):
    store = InMemoryThreadStore()
    thread = LocalThread()
    store.save_thread(thread)
    store.append(thread.id, LONG)
    counting = Counting(store)
    window = make()
    got = thread.read(counting, window)
    assert got == full_window(window, LONG).get_messages()
    assert counting.count("messages") <= most_messages, counting.asked
    assert counting.count("roles") <= most_roles, counting.asked
    # The window holds the part it was given, and says how much it leaves out.
    assert len(window.history) == len(got) - isinstance(window, HeadAndTailContext)
    assert window.save_state()["omitted"]["count"] == len(LONG) - len(window.history)


def test_an_unbounded_window_and_a_window_of_another_kind_get_the_whole_thread():
    store = InMemoryThreadStore()
    thread = LocalThread()
    store.save_thread(thread)
    store.append(thread.id, LONG[:41])
    counting = Counting(store)
    assert thread.read(counting, UnboundedContext()) == LONG[:41]
    assert counting.asked == [("messages", 0, None)]

    class LastTwo(BufferedContext):  # a subclass that chooses otherwise is given every message
        def get_messages(self):
            return self.history[-2:]

    assert thread.read(counting, LastTwo(10)) == LONG[39:41]


def test_a_window_read_of_a_remote_or_missing_thread_raises_as_the_full_read_does(store):
    store.save_thread(RemoteThread(id="remote"))
    for window in (BufferedContext(5), HeadAndTailContext(1, 2), None):
        with pytest.raises(ThreadKindError, match="can be read from it here"):
            read(store, LocalThread(id="remote"), window)
        with pytest.raises(ThreadNotFoundError, match="no thread with id 'nope'"):
            read(store, LocalThread(id="nope"), window)


def test_a_window_read_never_cuts_a_call_from_its_results(store):
    # A turn with six parallel calls straddles every cut a window of 3 could make.
    calls = [ToolCall(id=f"c{n}", name="f", arguments="{}") for n in range(6)]
    history = [
        SystemMessage(content="s"),
        UserMessage(content="q"),
        AIMessage(content=None, tool_calls=calls),
        *(ToolMessage(tool_call_id=call.id, content="r") for call in calls),
        UserMessage(content="next"),
    ]
    thread = LocalThread()
    store.save_thread(thread)
    store.append(thread.id, history)
    for size in range(1, 10):
        window = BufferedContext(size)
        got = read(store, thread, window)
        assert got == full_window(window, history).get_messages()
        assert not isinstance(got[1], ToolMessage)


# -- what a store remembers between reads (issue 38): how far back a read looked, the messages decoded ------


@pytest.mark.parametrize("margin", [0, TurnMemo.TAIL_MARGIN])
@settings(SETTINGS, max_examples=8)
@given(
    first=HISTORIES,
    turns=st.lists(
        st.tuples(st.lists(ms.messages(extensions=False), max_size=20), CONTEXTS), min_size=1, max_size=5
    ),
)
def test_reads_turn_after_turn_give_what_a_fresh_read_gives(monkeypatch, store, margin, first, turns):
    # One store for the whole thread, read turn after turn by windows of every kind: later reads are given
    # as many rows as the last read of their kind looked at (and a margin: none at all in one variant, so
    # that every append past it makes the read ask again), from messages decoded by earlier reads. Each
    # read gives what the window gives with the whole thread added.
    monkeypatch.setattr(TurnMemo, "TAIL_MARGIN", margin)
    monkeypatch.setattr(window_module, "_PAGE", 4)  # generated threads are short: pages they outgrow
    thread = LocalThread()
    store.save_thread(thread)
    history = list(first)
    if history:
        store.append(thread.id, history)
    for batch, context in [(batch, context) for batch, context in turns for _ in range(2)]:
        if batch:
            store.append(thread.id, batch)
            history += batch
        window = same_settings(context)
        assert read(store, thread, window) == full_window(context, history).get_messages()


def unique_exchange(n: int, tag: str) -> list:
    return [UserMessage(content=f"{tag} question {n}"), AIMessage(content=f"{tag} answer {n}")]


def test_a_bots_next_turn_decodes_only_the_messages_new_since_its_last(tmp_path, monkeypatch):
    from messages.stores import _codec

    decoded: list[int] = []
    real = _codec.decode_joined

    def counting(joined, expected):
        decoded.append(expected)
        return real(joined, expected)

    monkeypatch.setattr(_codec, "decode_joined", counting)
    tag = uuid.uuid4().hex  # texts no other test decoded in this process
    with SQLiteThreadStore(tmp_path / "turns.db") as store:
        thread = LocalThread()
        store.save_thread(thread)
        thread.append(store, [m for n in range(300) for m in unique_exchange(n, tag)])
        assert len(thread.read(store, BufferedContext(40))) == 40
        assert sum(decoded) == 40
        decoded.clear()
        thread.append(store, unique_exchange(300, tag))
        again = thread.read(store, BufferedContext(40))
        assert again == store.messages(thread.id)[-40:]
        assert sum(decoded) == 2, "only the two messages appended since the last read are parsed"


def test_a_token_limited_read_is_given_the_rows_the_last_one_looked_at_not_four_pages(tmp_path, monkeypatch):
    from messages.stores import _sql

    tails: list[int] = []
    real = _sql.window_snapshot

    def recording(thread_id, request, tail, fetched, timestamp):
        tails.append(tail)
        return real(thread_id, request, tail, fetched, timestamp)

    monkeypatch.setattr(_sql, "window_snapshot", recording)
    with SQLiteThreadStore(tmp_path / "turns.db") as store:
        thread = LocalThread()
        store.save_thread(thread)
        thread.append(store, [m for n in range(300) for m in unique_exchange(n, "t")])
        budget = {"message_token_counter": lambda m: 10}  # 10 per message: 100 messages fit in 1,000
        first = thread.read(store, TokenLimitedContext(1_000, **budget))
        assert tails == [4 * window_module._PAGE]
        for n in range(300, 303):
            thread.append(store, unique_exchange(n, "t"))
            tails.clear()
            got = thread.read(store, TokenLimitedContext(1_000, **budget))
            history = store.messages(thread.id)
            assert got == full_window(TokenLimitedContext(1_000, **budget), history).get_messages()
            assert len(got) == len(first)
            # One statement, of the rows the last read looked at (its window and the unit it refused) and
            # the margin: fewer than the four pages a read asks for first.
            assert tails == [len(first) + 1 + TurnMemo.TAIL_MARGIN], tails
