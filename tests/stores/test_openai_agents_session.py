"""``ThreadStoreSession`` (messages.integrations.openai_agents) on every backend in both flavours: the
``Session`` protocol as the SDK's own session tests check it for ``SQLiteSession`` (items back as they
went in, the newest ``limit``, pop, clear, sessions apart, settings), in our words, and what the SDK's
sessions do not do: a limit that never cuts an exchange, a pop that is the store's atomic pop, a damaged
row named instead of skipped, bad items refused before anything is written, reads that cost what the
window holds."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from messages import (
    AIMessage,
    ConversionError,
    CorruptDataError,
    InvalidArgumentError,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from messages.compaction import Compactor
from messages.stores.base import call_store
from tests.openai_agents_items import (
    STANDING_ALONE,
    assistant,
    expected_window,
    function_call,
    function_output,
    histories,
    mcp_call,
    reasoning,
    user,
    user_parts,
    web_search,
)
from tests.stores._backends import open_store, raw_rows
from tests.stores.test_agent_framework import with_store

pytest.importorskip("agents")
from agents import SessionSettings

from messages.integrations.openai_agents import ITEM_KEY, ThreadStoreSession

TURN = [
    user("Weather in Paris and Rome? ünï ✓"),
    reasoning(1, encrypted=True),
    assistant(1, "Let me look."),
    function_call("c1"),
    function_call("c2", arguments='{"city":"Rome"}'),
    function_output("c2", [{"type": "input_text", "text": "rain"}]),
    function_output("c1", "sun"),
    web_search(2),
    mcp_call(3),
    assistant(4, "Sun in Paris, rain in Rome."),
]


def test_a_new_session_holds_nothing_and_pop_and_clear_are_no_errors(backend, make_spec):
    async def body(store):
        session = ThreadStoreSession("s1", store)
        assert await session.get_items() == []
        assert await session.get_items(limit=3) == []
        assert await session.pop_item() is None
        await session.clear_session()
        assert await call_store(store, "threads") == []  # nothing was made for it

    with_store(make_spec(backend), body)


def test_items_come_back_exactly_one_stored_message_each(backend, make_spec):
    async def body(store):
        session = ThreadStoreSession("s1", store)
        await session.add_items(TURN[:1])
        await session.add_items(TURN[1:])
        items = await session.get_items()
        assert json.dumps(items) == json.dumps(TURN)  # the same keys, in the same order
        records = await call_store(store, "records", "s1")
        assert [json.loads(r.metadata[ITEM_KEY]) for r in records] == TURN  # its exact JSON text
        assert [type(r.message) for r in records] == [UserMessage] + [AIMessage] * 4 + [ToolMessage] * 2 + [
            AIMessage
        ] * 3

    with_store(make_spec(backend), body)


def test_pops_take_the_items_back_newest_first_exactly(backend, make_spec):
    async def body(store):
        session = ThreadStoreSession("s1", store)
        await session.add_items(TURN)
        popped = [await session.pop_item() for _ in TURN]
        assert popped == TURN[::-1]
        assert await session.pop_item() is None
        assert await session.get_items() == []
        await session.add_items(TURN[:2])  # the session goes on
        assert await session.get_items() == TURN[:2]

    with_store(make_spec(backend), body)


def test_sessions_keep_apart_and_clear_removes_one(backend, make_spec):
    async def body(store):
        first, second = ThreadStoreSession("s1", store), ThreadStoreSession("s2", store)
        await first.add_items([user("I like cats")])
        await second.add_items([user("I like dogs"), assistant(1, "Dogs!")])
        assert await second.pop_item() == assistant(1, "Dogs!")
        assert await first.get_items() == [user("I like cats")]
        await first.clear_session()
        assert await first.get_items() == []
        assert await second.get_items() == [user("I like dogs")]
        await first.add_items([user("again")])  # a cleared session starts afresh
        assert await first.get_items() == [user("again")]

    with_store(make_spec(backend), body)


def test_a_limit_reaches_back_to_the_start_of_the_exchange_where_the_sdk_sessions_cut(backend, make_spec):
    async def body(store):
        session = ThreadStoreSession("s1", store)
        await session.add_items(TURN)
        # The newest 5 start at the output of c1, whose call is two items before: back to the run of the
        # model's output (reasoning, text, two calls), whose first item is the reasoning.
        assert await session.get_items(limit=5) == TURN[1:]
        assert await session.get_items(limit=1) == TURN[-3:]  # the hosted calls and the answer: one run
        assert await session.get_items(limit=20) == TURN
        assert await session.get_items(limit=0) == []
        assert await session.get_items(limit=-1) == TURN  # as SQLiteSession: a negative limit is none

    with_store(make_spec(backend), body)


def test_the_settings_limit_is_the_default_and_an_explicit_limit_wins(backend, make_spec):
    async def body(store):
        items = [user(f"Message {i}") for i in range(6)]
        session = ThreadStoreSession("s1", store, session_settings=SessionSettings(limit=3))
        await session.add_items(items)
        assert await session.get_items() == items[-3:]
        assert await session.get_items(limit=2) == items[-2:]
        as_dict = ThreadStoreSession("s1", store, session_settings={"limit": 1})
        assert isinstance(as_dict.session_settings, SessionSettings)
        assert await as_dict.get_items() == items[-1:]
        assert ThreadStoreSession("s1", store).session_settings == SessionSettings()

    with_store(make_spec(backend), body)


def test_settings_with_a_key_the_sdk_does_not_know_are_refused_as_the_sdk_refuses_them():
    from messages import InMemoryThreadStore

    with pytest.raises(TypeError, match="Unknown session settings: limitt"):
        ThreadStoreSession("s1", InMemoryThreadStore(), session_settings={"limitt": 1})


@pytest.mark.parametrize(
    ("bad", "index", "what"),
    [
        pytest.param([user("ok"), "a string"], 1, r"items\[1\] is a str", id="not-a-dict"),
        pytest.param(
            [user("ok"), {"role": "user", "content": object()}], 1, r"items\[1\].*object", id="object"
        ),
        pytest.param([{"role": "user", "content": math.nan}], 0, r"items\[0\] is not JSON", id="nan"),
    ],
)
def test_an_item_that_is_not_json_is_refused_by_index_and_nothing_is_added(
    backend, make_spec, bad, index, what
):
    async def body(store):
        session = ThreadStoreSession("s1", store)
        await session.add_items([user("before")])
        with pytest.raises(InvalidArgumentError, match=what) as caught:
            await session.add_items(bad)
        assert isinstance(caught.value, TypeError)  # as SQLiteSession's json.dumps raises
        assert (caught.value.argument, caught.value.index) == ("items", index)
        assert await session.get_items() == [user("before")]

    with_store(make_spec(backend), body)


def test_a_damaged_row_is_named_not_skipped(durable_backend, make_spec):
    spec = make_spec(durable_backend)

    async def write(store):
        await ThreadStoreSession("s1", store).add_items(TURN[:3])

    with_store(spec, write)
    raw_rows(
        spec,
        "UPDATE thread_store_messages SET metadata = ? WHERE thread_id = ? AND position = ?",
        ("{not json", "s1", 2),
    )

    async def read(store):
        session = ThreadStoreSession("s1", store)
        with pytest.raises(CorruptDataError, match="position 2"):
            await session.get_items()
        with pytest.raises(CorruptDataError, match="position 2"):
            await session.pop_item()
        assert await call_store(store, "roles", "s1") == ["user", "assistant", "assistant"]  # it stayed

    with_store(spec, read)


@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=histories(max_turns=3), data=st.data())
def test_generated_histories_read_back_whole_limited_and_popped(backend, make_spec, drawn, data):
    history, batches = drawn
    limits = data.draw(st.lists(st.integers(0, len(history) + 1), min_size=1, max_size=4))

    async def body(store):
        session = ThreadStoreSession("s1", store)
        at = 0
        for size in batches:  # as the Runner adds them
            await session.add_items(history[at : at + size])
            at += size
        assert await session.get_items() == history
        for limit in limits:
            assert await session.get_items(limit=limit) == expected_window(history, limit)
        assert [await session.pop_item() for _ in history] == history[::-1]

    with_store(make_spec(backend), body)


def test_a_limited_read_of_a_long_session_reads_what_it_returns_and_a_page(backend, make_spec, monkeypatch):
    async def body(store):
        session = ThreadStoreSession("s1", store)
        for turn in range(300):
            await session.add_items([user(f"q{turn}")])
            await session.add_items(
                [function_call(f"c{turn}"), function_output(f"c{turn}"), assistant(turn, "a")]
            )
        read: list[tuple[str, int]] = []
        inner = store.inner if hasattr(store, "inner") else store
        for name in ("metadata", "records", "messages"):
            monkeypatch.setattr(inner, name, counting(read, name, getattr(inner, name)))
        got = await session.get_items(limit=2)  # the output and the answer: back to the call
        assert got == [function_call("c299"), function_output("c299"), assistant(299, "a")]
        assert read == [("metadata", 2 + 16)]  # the envelopes of the newest 2 and a page, of 1,200
        read.clear()
        assert len(await session.get_items(limit=50)) == 51  # back to the call of the 51st
        assert read == [("metadata", 50 + 16)]

    with_store(make_spec(backend), body)


def counting(read: list[tuple[str, int]], name: str, method: Any) -> Any:
    """``method`` of a store (sync or async), noting in ``read`` how many rows each call returned."""

    def counted(*args: Any, **kwargs: Any) -> Any:
        result = method(*args, **kwargs)
        if not asyncio.iscoroutine(result):
            read.append((name, len(result)))
            return result

        async def awaited() -> Any:
            rows = await result
            read.append((name, len(rows)))
            return rows

        return awaited()

    return counted


def test_adds_from_many_tasks_at_once_lose_nothing_and_pops_take_each_item_once(backend, make_spec):
    async def body(store):
        session = ThreadStoreSession("s1", store)
        writers = [
            session.add_items([user(f"w{w}-{i}"), assistant(i, f"r{w}-{i}")])
            for w in range(4)
            for i in range(3)
        ]
        await asyncio.gather(*writers)
        items = await session.get_items()
        assert len(items) == 24
        pairs = [(items[i]["content"], items[i + 1]["content"][0]["text"]) for i in range(0, 24, 2)]
        assert sorted(pairs) == sorted((f"w{w}-{i}", f"r{w}-{i}") for w in range(4) for i in range(3))
        popped = await asyncio.gather(*(session.pop_item() for _ in range(24)))
        assert sorted(json.dumps(p) for p in popped) == sorted(json.dumps(i) for i in items)
        assert await session.get_items() == []

    with_store(make_spec(backend), body)


def test_a_cancelled_add_wrote_all_of_its_items_or_none(durable_backend, make_spec):
    async def body(store):
        session = ThreadStoreSession("s1", store)
        cancelled = []
        for delay in (0, 0, 0.001, 0.003, 0.01, 0.03):
            task = asyncio.create_task(session.add_items(TURN))
            await asyncio.sleep(delay)
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                cancelled.append(delay)
            assert await session.get_items() in ([], TURN)  # settled: nothing lands later either
            await asyncio.sleep(0.01)
            assert await session.get_items() in ([], TURN)
            await session.clear_session()
        assert 0 in cancelled

    with_store(make_spec(durable_backend), body)


def test_items_the_session_did_not_write_read_as_responses_items(backend, make_spec):
    async def body(store):
        await call_store(store, "create_thread", "s1")
        await call_store(store, "append", "s1", [UserMessage(content="typed"), AIMessage(content="hi")])
        session = ThreadStoreSession("s1", store)
        await session.add_items([user("then the SDK")])
        assert await session.get_items() == [
            {"type": "message", "role": "user", "content": "typed"},
            {"type": "message", "role": "assistant", "content": "hi"},
            user("then the SDK"),
        ]
        assert await session.pop_item() == user("then the SDK")
        assert await session.pop_item() == {"type": "message", "role": "assistant", "content": "hi"}

    with_store(make_spec(backend), body)


def test_popping_a_message_the_session_did_not_write_and_that_is_two_items_leaves_it_there(
    backend, make_spec
):
    async def body(store):
        await call_store(store, "create_thread", "s1")
        turn = AIMessage(
            content="Let me look.", tool_calls=[ToolCall(id="c1", name="get_weather", arguments="{}")]
        )
        await call_store(store, "append", "s1", [UserMessage(content="look"), turn], metadata=[{}, {"k": 1}])
        before = await call_store(store, "records", "s1")
        session = ThreadStoreSession("s1", store)
        with pytest.raises(ConversionError, match="not one") as caught:
            await session.pop_item()
        assert caught.value.index == 1
        # Not taken and put back: never removed (its id, metadata, time and position as they were).
        assert await call_store(store, "records", "s1") == before

    with_store(make_spec(backend), body)


def test_popping_an_item_whose_stored_text_is_damaged_names_it_and_leaves_it_exactly(
    durable_backend, make_spec
):
    spec = make_spec(durable_backend)

    async def write(store):
        await ThreadStoreSession("s1", store).add_items(TURN[:3])

    with_store(spec, write)
    raw_rows(
        spec,
        "UPDATE thread_store_messages SET metadata = ? WHERE thread_id = ? AND position = ?",
        (json.dumps({ITEM_KEY: '{"type": "message", "role": '}), "s1", 2),
    )

    async def pop(store):
        before = await call_store(store, "records", "s1")
        with pytest.raises(CorruptDataError, match="position 2") as caught:
            await ThreadStoreSession("s1", store).pop_item()
        assert caught.value.position == 2
        assert await call_store(store, "records", "s1") == before

    with_store(spec, pop)


def test_an_item_with_a_lone_surrogate_comes_back_exactly(backend, make_spec):
    async def body(store):
        session = ThreadStoreSession("s1", store)
        odd = {"role": "user", "content": "half a pair: \ud83d, nul: \x00"}
        await session.add_items([odd])
        assert await session.get_items() == [odd]

    with_store(make_spec(backend), body)


def test_items_that_stand_alone_are_kept_and_counted_exactly(backend, make_spec):
    async def body(store):
        session = ThreadStoreSession("s1", store)
        items = [dict(item) for item in STANDING_ALONE] + [user_parts("look")]
        await session.add_items(items)
        assert await session.get_items() == items
        assert await session.get_items(limit=2) == items[-2:]

    with_store(make_spec(backend), body)


def test_a_session_made_with_something_that_is_no_store_or_no_compactor_is_refused():
    from messages import InMemoryThreadStore, InvalidThreadIdError

    with pytest.raises(InvalidArgumentError, match="store is a ThreadStore") as caught:
        ThreadStoreSession("s1", "agents.db")  # type: ignore[arg-type]
    assert caught.value.argument == "store"
    with pytest.raises(InvalidArgumentError, match=r"compactor is a messages\.compaction\.Compactor"):
        ThreadStoreSession("s1", InMemoryThreadStore(), compactor="gpt-4o-mini")  # type: ignore[arg-type]
    with pytest.raises(InvalidThreadIdError):
        ThreadStoreSession("", InMemoryThreadStore())


def test_a_pop_below_a_summary_removes_it_and_the_session_reads_its_items_again(backend, make_spec):
    def summarize(request: Any) -> str:
        return "they talked"

    async def body(store):
        compactor = Compactor(summarize, limit=6, trigger=5, keep=2)
        session = ThreadStoreSession("s1", store, compactor=compactor)
        for i in range(4):
            await session.add_items([user(f"q{i}"), assistant(i, f"a{i}")])
        [checkpoint] = await call_store(store, "checkpoints", "s1")
        items = await session.get_items()
        assert items[0] == {"role": "system", "content": checkpoint.summary.content}
        assert items[1:] == [
            user(f"q{i}") if n == 0 else assistant(i, f"a{i}") for i in (2, 3) for n in (0, 1)
        ]
        for _ in range(8 - checkpoint.upto + 1):
            await session.pop_item()
        assert await call_store(store, "checkpoints", "s1") == []
        assert len(await session.get_items()) == checkpoint.upto - 1

    with_store(make_spec(backend), body)


def test_the_store_stays_the_callers_to_close(make_spec):
    store = open_store(make_spec("sqlite"))
    session = ThreadStoreSession("s1", store)
    asyncio.run(session.add_items([user("hi")]))
    del session
    assert store.messages("s1") == [UserMessage(content="hi")]
    store.close()
