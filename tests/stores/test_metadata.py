"""``metadata``: the envelopes' metadata read alone, on every backend in both flavours (the ``store``
fixture): what ``records()`` reads of it, sliced as ``messages`` slices, without reading the messages."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from messages import (
    CorruptDataError,
    InvalidArgumentError,
    RemoteThread,
    ThreadKindError,
    ThreadNotFoundError,
    UserMessage,
)
from tests.stores._backends import open_store, raw_rows

META = st.none() | st.dictionaries(
    st.sampled_from(["k", "item", "ünï"]),
    st.none() | st.integers(-3, 3) | st.text(max_size=5) | st.lists(st.booleans(), max_size=2),
    max_size=3,
)


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    batches=st.lists(st.lists(META, min_size=1, max_size=4), max_size=4),
    start=st.integers(-10, 10),
    stop=st.none() | st.integers(-10, 10),
)
def test_metadata_reads_what_records_read_sliced_as_messages_slices(store, batches, start, stop):
    thread_id = store.create_thread()
    for batch in batches:
        store.append(thread_id, [UserMessage(content=str(n)) for n in range(len(batch))], metadata=batch)
    assert store.metadata(thread_id, start, stop) == [
        r.metadata for r in store.records(thread_id, start, stop)
    ]
    assert store.metadata(thread_id) == [meta or {} for batch in batches for meta in batch]


def test_metadata_refuses_what_every_read_refuses(store):
    with pytest.raises(ThreadNotFoundError):
        store.metadata("no-such-thread")
    store.save_thread(RemoteThread(id="remote", response_id="resp_1"))
    with pytest.raises(ThreadKindError):
        store.metadata("remote")
    thread_id = store.create_thread()
    with pytest.raises(InvalidArgumentError, match="metadata"):
        store.metadata(thread_id, "0")  # type: ignore[arg-type]


def test_metadata_that_no_longer_reads_is_named_by_its_position(durable_backend, make_spec):
    spec = make_spec(durable_backend)
    store = open_store(spec)
    try:
        thread_id = store.create_thread()
        store.append(thread_id, [UserMessage(content="a"), UserMessage(content="b")], metadata={"k": 1})
        raw_rows(
            spec,
            "UPDATE thread_store_messages SET metadata = ? WHERE thread_id = ? AND position = ?",
            ("[1, 2]", thread_id, 1),
        )
        with pytest.raises(CorruptDataError, match=f"{thread_id!r}, position 1"):
            store.metadata(thread_id)
        assert store.metadata(thread_id, 0, 1) == [{"k": 1}]
    finally:
        store.close()
