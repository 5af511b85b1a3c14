"""The per-message envelope, on every backend in both flavours: ids (given or minted) and JSON metadata
stored beside each message and read back by ``records()``; an append of an id the thread holds refused
whole, or, with ``skip_existing=True``, left out; bad envelopes refused by name before anything is written;
and a store written by the previous release (before the envelope) opening and reading after its upgrade."""

from __future__ import annotations

import re
import shutil
from datetime import UTC
from pathlib import Path

import pytest

from messages import (
    AIMessage,
    CorruptDataError,
    InvalidArgumentError,
    LocalThread,
    MessageExistsError,
    MessageRecord,
    RemoteThread,
    SystemMessage,
    ThreadKindError,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from messages.context import BufferedContext
from messages.stores import postgres as postgres_module
from messages.stores import sqlite as sqlite_module
from messages.stores._codec import MAX_METADATA_DEPTH
from tests.stores._backends import open_store, raw_rows

FIXTURES = Path(__file__).parent / "fixtures"
CALL = ToolCall(id="call_1", name="get_weather", arguments='{"city": "Paris"}')
TURN = [
    UserMessage(content="Weather in Paris?"),
    AIMessage(content=None, tool_calls=[CALL]),
    ToolMessage(tool_call_id="call_1", content='{"sky": "rain"}'),
    AIMessage(content="Rain."),
]


def test_ids_and_metadata_are_stored_beside_each_message_and_read_back(store):
    thread_id = store.create_thread()
    meta = [
        {"author_name": "ada", "n": 1, "nested": {"x": [1.5, None, True]}},
        None,
        {},
        {"k": "é\U0001f600"},
    ]
    assert store.append(thread_id, TURN, ids=["m1", None, "m3", "m4"], metadata=meta) == range(4)
    records = store.records(thread_id)
    assert [type(r) for r in records] == [MessageRecord] * 4
    assert [r.position for r in records] == [0, 1, 2, 3]
    assert [r.message for r in records] == TURN
    assert [r.metadata for r in records] == [meta[0], {}, {}, meta[3]]
    assert (records[0].id, records[2].id, records[3].id) == ("m1", "m3", "m4")
    assert re.fullmatch("[0-9a-f]{32}", records[1].id)  # minted
    assert all(r.created_at.tzinfo is UTC for r in records)
    # One metadata object for every message of an append; records slice as messages do.
    store.append(thread_id, [UserMessage(content="more"), AIMessage(content="ok")], metadata={"turn": 2})
    assert [r.metadata for r in store.records(thread_id, -2)] == [{"turn": 2}, {"turn": 2}]
    assert [r.position for r in store.records(thread_id, 1, 3)] == [1, 2]
    assert store.records(thread_id, 10) == []
    assert store.roles(thread_id) == ["user", "assistant", "tool", "assistant", "user", "assistant"]
    assert store.roles(thread_id, -3, -1) == ["assistant", "user"]


def test_minted_ids_are_distinct(store):
    thread_id = store.create_thread()
    store.append(thread_id, [UserMessage(content=str(n)) for n in range(50)])
    assert len({r.id for r in store.records(thread_id)}) == 50


def test_an_id_the_thread_holds_is_refused_and_nothing_of_the_append_is_written(store):
    thread_id = store.create_thread()
    store.append(thread_id, TURN[:2], ids=["m1", "m2"])
    with pytest.raises(
        MessageExistsError, match=r"already holds a message with id 'm2' at position 1"
    ) as caught:
        store.append(thread_id, TURN[2:], ids=["m3", "m2"])
    assert isinstance(caught.value, ValueError)
    assert (caught.value.thread_id, caught.value.message_id) == (thread_id, "m2")
    assert "skip_existing=True" in str(caught.value)
    assert [r.id for r in store.records(thread_id)] == ["m1", "m2"]
    # The same id in another thread is another message.
    other = store.create_thread()
    assert store.append(other, TURN[:1], ids=["m1"]) == range(1)


def test_skip_existing_adds_only_the_ids_the_thread_does_not_hold(store):
    thread_id = store.create_thread()
    ids = ["u1", "a1", "t1", "a2"]
    assert store.append(thread_id, TURN, ids=ids, skip_existing=True) == range(4)
    # The turn replayed: nothing added, the positions returned are empty (at the end).
    assert store.append(thread_id, TURN, ids=ids, skip_existing=True) == range(4, 4)
    # Replayed with one new message: only that one is added.
    extra = UserMessage(content="and tomorrow?")
    assert store.append(thread_id, [*TURN, extra], ids=[*ids, "u2"], skip_existing=True) == range(4, 5)
    assert store.messages(thread_id) == [*TURN, extra]
    assert [r.id for r in store.records(thread_id)] == [*ids, "u2"]
    with pytest.raises(MessageExistsError):  # without it, the held ids are refused
        store.append(thread_id, TURN, ids=ids)


def nested(depth: int) -> dict:
    """Metadata ``depth`` levels deep: ``{"k": {"k": ... {}}}``."""
    value: dict = {}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


BAD_ENVELOPES = [
    (
        {"ids": ["a"]},
        "ids",
        None,
        r"ids pairs one id \(or None\) with each message: 2 message\(s\), 1 given",
    ),
    ({"ids": "ab"}, "ids", None, r"ids is a list with one id \(or None\) per message, not a str"),
    ({"ids": object()}, "ids", None, "ids is a list with one id .* not a object"),
    (
        {"ids": ["a", "a"]},
        "ids",
        1,
        r"ids\[1\] is 'a', as ids\[0\] is: .* give each message of the batch its own",
    ),
    ({"ids": ["a", ""]}, "ids", 1, r"ids\[1\] is not a usable id: a message id cannot be empty"),
    ({"ids": ["a", 7]}, "ids", 1, r"ids\[1\] is not a usable id: a message id is a string, not a int"),
    (
        {"ids": ["a", "x\ud800"]},
        "ids",
        1,
        r"ids\[1\] is not a usable id: a message id must be valid Unicode",
    ),
    ({"metadata": [{}, {"score": float("nan")}]}, "metadata", 1, r"metadata\[1\]\['score'\] holds nan"),
    ({"metadata": {"score": float("inf")}}, "metadata", None, r"metadata\['score'\] holds inf"),
    ({"metadata": [{}, {1: "x"}]}, "metadata", 1, r"metadata\[1\] has the key 1, a int"),
    ({"metadata": [{"when": object()}, None]}, "metadata", 0, r"metadata\[0\]\['when'\] holds a object"),
    ({"metadata": [{}]}, "metadata", None, r"2 message\(s\), 1 given; give one per message"),
    ({"metadata": [[1], None]}, "metadata", 0, r"metadata\[0\] is a list, not a JSON object"),
    (
        {"metadata": "ab"},
        "metadata",
        None,
        "metadata is a list with one JSON object .* for all, not a str",
    ),
    ({"metadata": object()}, "metadata", None, "metadata is a list with one JSON object .* not a object"),
    ({"metadata": nested(65)}, "metadata", None, "nests deeper than 64 levels.*MAX_METADATA_DEPTH"),
    ({"metadata": nested(100_000)}, "metadata", None, "nests deeper than 64 levels"),
    ({"skip_existing": "no"}, "skip_existing", None, "skip_existing is True or False, not a str"),
    ({"skip_existing": 1}, "skip_existing", None, "skip_existing is True or False, not a int"),
]
"""(arguments, the argument named, the message index named, what the message says)."""


def test_a_bad_envelope_is_refused_by_name_before_anything_is_written(store):
    # One store for every case (a store per case costs a PostgreSQL schema each).
    thread_id = store.create_thread()
    for kwargs, argument, index, match in BAD_ENVELOPES:
        with pytest.raises(InvalidArgumentError, match=match) as caught:
            store.append(thread_id, TURN[:2], **kwargs)
        assert (caught.value.argument, caught.value.index) == (argument, index), kwargs
        assert isinstance(caught.value, ValueError)
        assert isinstance(caught.value, TypeError)
        # The same through the thread.
        with pytest.raises(InvalidArgumentError, match=match):
            LocalThread(id=thread_id).append(store, TURN[:2], **kwargs)
    assert store.records(thread_id) == []


def test_metadata_nested_as_deep_as_the_limit_is_stored_and_read_back(store):
    thread_id = store.create_thread()
    store.append(thread_id, TURN[0], metadata=nested(MAX_METADATA_DEPTH))
    assert store.records(thread_id)[0].metadata == nested(MAX_METADATA_DEPTH)


def test_records_and_roles_of_a_remote_thread_raise_as_messages_does(store):
    store.save_thread(RemoteThread(id="r"))
    for call in (store.records, store.roles):
        with pytest.raises(ThreadKindError, match="can be read from it here"):
            call("r")


def test_damaged_metadata_names_its_thread_and_position(durable_backend, make_spec):
    spec = make_spec(durable_backend)
    store = open_store(spec)
    store.create_thread("t")
    store.append("t", TURN, metadata={"ok": True})
    raw_rows(spec, "UPDATE thread_store_messages SET metadata = ? WHERE position = 2", ("not json",))
    with pytest.raises(CorruptDataError, match=r"^thread 't', position 2: the stored metadata does not read"):
        store.records("t")
    assert [r.metadata for r in store.records("t", 0, 2)] == [{"ok": True}] * 2
    assert store.messages("t") == TURN  # the messages themselves still read
    store.close()


# -- the previous release's stores ------------------------------------------------------------------------

PREVIOUS = [  # what tests/stores/fixtures/make_written_by_58bde2c.py stored in thread "weather"
    SystemMessage(content="You are terse."),
    UserMessage(content="Weather in Paris? nul:\x00 emoji:\U0001f600"),
    AIMessage(content=None, tool_calls=[CALL]),
    ToolMessage(tool_call_id="call_1", content='{"sky": "rain"}'),
    AIMessage(content="Rain."),
]


def check_upgraded(store, spec, module) -> None:
    """What a store written by the previous release must give after its upgrade."""
    names = [name for (name,) in raw_rows(spec, "SELECT name FROM thread_store_migrations ORDER BY name")]
    assert names == [step.name for step in module.MIGRATIONS]
    assert store.threads() == ["weather", "remote-1", "empty"]
    assert store.messages("weather") == PREVIOUS
    assert store.load_thread("weather") == LocalThread(
        id="weather", context_state={"memory": {"user": "ada"}}
    )
    remote = store.load_thread("remote-1")
    assert (type(remote), remote.response_id, remote.open_calls) == (RemoteThread, "resp_1", ("call_9",))
    # The envelope of the stored messages: minted ids, no metadata, the roles read from their dumps.
    records = store.records("weather")
    assert all(re.fullmatch("[0-9a-f]{32}", r.id) for r in records)
    assert len({r.id for r in records}) == 5
    assert [r.metadata for r in records] == [{}] * 5
    assert store.roles("weather") == ["system", "user", "assistant", "tool", "assistant"]
    assert store.roles("empty") == ["developer"]
    assert LocalThread(id="weather").read(store, BufferedContext(2)) == [PREVIOUS[0], PREVIOUS[4]]
    # And it goes on: envelopes on new messages, the old ids held.
    assert store.append("weather", UserMessage(content="Thanks."), ids=["new"]) == range(5, 6)
    with pytest.raises(MessageExistsError):
        store.append("weather", UserMessage(content="again"), ids=[records[0].id])
    assert store.records("weather", -1)[0].id == "new"


def test_a_sqlite_store_written_by_the_previous_release_opens_and_reads_after_the_upgrade(
    make_spec, api, tmp_path
):
    # The file was written by the previous release's own code (see make_written_by_58bde2c.py).
    path = tmp_path / "previous.sqlite"
    shutil.copyfile(FIXTURES / "written-by-58bde2c.sqlite", path)
    spec = {**make_spec("sqlite-async" if api == "async" else "sqlite"), "path": str(path)}
    with open_store(spec) as store:
        check_upgraded(store, spec, sqlite_module)


@pytest.mark.postgres
def test_a_postgres_store_written_by_the_previous_release_opens_and_reads_after_the_upgrade(
    make_spec, api, monkeypatch
):
    # The previous release's schema is its steps m001 to m003, whose statements are kept unchanged (the
    # names and SQL of a step never change once released); its rows are those of the SQLite fixture,
    # which that release's code wrote: the same text, the dumps byte for byte.
    spec = make_spec("postgres-async" if api == "async" else "postgres")
    previous = postgres_module.MIGRATIONS[:3]
    assert [step.name for step in previous] == [
        "m001_create_threads",
        "m002_create_messages",
        "m003_add_thread_kind",
    ]
    with monkeypatch.context() as patch:
        patch.setattr(postgres_module, "MIGRATIONS", previous)
        open_store({**spec, "api": "sync"}).close()
    fixture = {"backend": "sqlite", "path": str(FIXTURES / "written-by-58bde2c.sqlite")}
    threads = raw_rows(
        fixture,
        "SELECT id, state, kind, length, created_at, updated_at FROM thread_store_threads ORDER BY ordinal",
    )
    for row in threads:
        raw_rows(
            spec,
            "INSERT INTO thread_store_threads (id, state, kind, length, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?::timestamptz, ?::timestamptz)",
            row,
        )
    for row in raw_rows(
        fixture, "SELECT thread_id, position, message, created_at FROM thread_store_messages"
    ):
        raw_rows(
            spec,
            "INSERT INTO thread_store_messages (thread_id, position, message, created_at) "
            "VALUES (?, ?, ?, ?::timestamptz)",
            row,
        )
    with open_store(spec) as store:
        check_upgraded(store, spec, postgres_module)
