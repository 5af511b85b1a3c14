"""Damaged data in SQLite and PostgreSQL: rows changed behind the store's back, as a bad disk, a bad
migration or a hand edit would. The damaged part raises CorruptDataError naming thread and position; every
other thread, and the rest of the damaged one, still read."""

from __future__ import annotations

import pytest

from messages import (
    AIMessage,
    CorruptDataError,
    PostgresThreadStore,
    SQLiteThreadStore,
    StoreError,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from messages.stores._sql import SQLThreadStore
from tests.stores._backends import open_store, raw_rows

CONVERSATION = [
    SystemMessage(content="You are terse."),
    UserMessage(content="Weather?"),
    AIMessage(content=None, tool_calls=[ToolCall(id="call_1", name="get_weather", arguments="{}")]),
    ToolMessage(tool_call_id="call_1", content='{"sky": "rain"}'),
    AIMessage(content="Rain."),
    UserMessage(content="Thanks."),
]


@pytest.fixture(
    params=[(None, None), (2, False), (2, True)], ids=["one-span", "spans-of-2", "spans-of-2-ahead"]
)
def span(request, monkeypatch):
    """Reads in one span, or in spans of two rows, fetched inline or ahead by a helper thread: the damage
    is found in a span after the first, and the read stops early."""
    size, ahead = request.param
    if size is not None:
        monkeypatch.setattr(SQLThreadStore, "_span", size)
        for backend in (SQLiteThreadStore, PostgresThreadStore):
            monkeypatch.setattr(backend, "_fetch_ahead", ahead)


@pytest.fixture
def damaged(durable_backend, make_spec, span):
    """A store with threads 'good' and 'bad', both holding CONVERSATION, and the spec to damage it with."""
    spec = make_spec(durable_backend)
    store = open_store(spec)
    for thread_id in ("good", "bad"):
        store.create_thread(thread_id)
        store.append(thread_id, CONVERSATION)
    yield store, spec
    store.close()


def set_row(spec, thread_id: str, position: int, text: str) -> None:
    raw_rows(
        spec,
        "UPDATE thread_store_messages SET message = ? WHERE thread_id = ? AND position = ?",
        (text, thread_id, position),
    )


@pytest.mark.parametrize(
    ("damage", "what"),
    [
        pytest.param(
            '{"role": "tool", "tool_call_id": "call_1", "content": "cut sh', "is not valid JSON", id="cut"
        ),
        pytest.param("", "is not valid JSON", id="empty"),
        pytest.param(
            '{"role": "user", "content": "a"},{"role": "user", "content": "b"}', "is not valid JSON", id="two"
        ),
        pytest.param(
            '{"role": "tool", "content": "no call id"}', "no longer validates as a Message", id="field"
        ),
        pytest.param('{"role": "robot", "content": "beep"}', "no longer validates as a Message", id="role"),
        pytest.param("[1, 2]", "no longer validates as a Message", id="array"),
    ],
)
def test_a_damaged_message_names_its_thread_and_position_and_the_rest_still_reads(damaged, damage, what):
    store, spec = damaged
    set_row(spec, "bad", 3, damage)
    with pytest.raises(CorruptDataError) as caught:
        store.messages("bad")
    error = caught.value
    assert isinstance(error, StoreError)
    assert isinstance(error, ValueError)
    assert (error.thread_id, error.position) == ("bad", 3)
    assert str(error).startswith(f"thread 'bad', position 3: the stored message {what}")
    assert "messages(thread_id, 0, 3) still reads" in str(error)
    with pytest.raises(CorruptDataError, match="position 3"):
        store.messages("bad", 2, 5)
    # Everything around the damage still reads, and so does every other thread.
    assert store.messages("bad", 0, 3) == CONVERSATION[:3]
    assert store.messages("bad", 4) == CONVERSATION[4:]
    assert store.messages("good") == CONVERSATION
    # The damaged thread still takes messages, at the right positions.
    assert store.append("bad", UserMessage(content="more")) == range(6, 7)
    assert store.messages("bad", -1) == [UserMessage(content="more")]


def test_a_missing_message_names_its_position(damaged):
    store, spec = damaged
    raw_rows(spec, "DELETE FROM thread_store_messages WHERE thread_id = ? AND position = ?", ("bad", 2))
    with pytest.raises(
        CorruptDataError, match=r"^thread 'bad', position 2: the message is missing"
    ) as caught:
        store.messages("bad")
    assert caught.value.position == 2
    assert store.messages("bad", 3) == CONVERSATION[3:]
    assert store.messages("good") == CONVERSATION


def test_sqlite_a_row_that_is_not_utf8_names_its_position(make_spec, span):
    # SQLite stores whatever bytes it is given as TEXT; sqlite3 then fails to decode them (an
    # OperationalError naming neither thread nor position) unless the store reads the bytes itself.
    spec = make_spec("sqlite")
    store = open_store(spec)
    for thread_id in ("good", "bad"):
        store.create_thread(thread_id)
        store.append(thread_id, CONVERSATION)
    raw_rows(
        spec,
        "UPDATE thread_store_messages SET message = CAST(? AS TEXT) WHERE thread_id = 'bad' AND position = 3",
        (b'{"role": "user", "content": "\xff"}',),
    )
    with pytest.raises(
        CorruptDataError, match=r"^thread 'bad', position 3: the stored message is not valid JSON"
    ) as caught:
        store.messages("bad")
    assert caught.value.position == 3
    assert store.messages("bad", 0, 3) == CONVERSATION[:3]
    assert store.messages("bad", 4) == CONVERSATION[4:]
    assert store.messages("good") == CONVERSATION
    store.close()


def test_the_first_of_several_damaged_rows_is_named(damaged):
    store, spec = damaged
    set_row(spec, "bad", 4, "{")
    set_row(spec, "bad", 1, "}")
    with pytest.raises(CorruptDataError) as caught:
        store.messages("bad")
    assert caught.value.position == 1


@pytest.mark.parametrize(
    ("state", "match"),
    [
        ('{"kind": "alien", "id": "bad"}', "its saved thread record does not read"),
        ("not json", "its saved thread record does not read"),
        ('{"kind": "local", "id": "someone-else"}', "its saved thread record carries the id 'someone-else'"),
    ],
)
def test_a_damaged_thread_record_names_its_thread(damaged, state, match):
    store, spec = damaged
    raw_rows(spec, "UPDATE thread_store_threads SET state = ? WHERE id = ?", (state, "bad"))
    with pytest.raises(CorruptDataError, match=f"^thread 'bad': {match}") as caught:
        store.load_thread("bad")
    assert (caught.value.thread_id, caught.value.position) == ("bad", None)
    with pytest.raises(CorruptDataError):
        store.thread_info("bad")
    # Its messages, the list of threads and the other threads are unaffected.
    assert store.messages("bad") == CONVERSATION
    assert store.threads() == ["good", "bad"]
    assert store.load_thread("good").id == "good"
