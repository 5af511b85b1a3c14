"""Summary checkpoints and token counts in every store, both flavours: the chain (compare and set on the
base, the winner carried by the conflict), what a checkpoint may cover, deleting to undo, no message
record touched, counts saved once; compaction over generated conversations on each backend, read against
the read recomputed from the whole thread; and a file of the previous schema upgraded on opening."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from messages import (
    AIMessage,
    CheckpointConflictError,
    CheckpointNotFoundError,
    InvalidCheckpointError,
    LocalThread,
    PositionError,
    Provenance,
    RemoteThread,
    SystemMessage,
    ThreadKindError,
    ThreadNotFoundError,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from messages.compaction import Compactor, summary_message
from messages.stores import postgres as postgres_module
from messages.stores import sqlite as sqlite_module
from tests.compaction_cases import WINDOWS, Scripted, compact, read, reference_read, run_conversation, turns
from tests.stores._backends import open_store, raw_rows

CALL = ToolCall(id="call_1", name="lookup", arguments="{}")
THREAD = [
    SystemMessage(content="Be brief."),
    UserMessage(content="q1"),
    AIMessage(content=None, tool_calls=[CALL]),
    ToolMessage.for_call(CALL, "r1"),
    AIMessage(content="a1"),
    UserMessage(content="q2"),
    AIMessage(content="a2"),
]


def new_thread(store) -> str:
    thread_id = store.create_thread()
    store.append(thread_id, THREAD)
    return thread_id


def test_checkpoints_chain_on_their_base_and_touch_no_message(store):
    thread_id = new_thread(store)
    records = store.records(thread_id)
    assert store.latest_checkpoint(thread_id) is None
    provenance = Provenance(model="openai/gpt-4o-mini", prompt_hash="ab12", input_tokens=40, output_tokens=9)
    first = store.add_checkpoint(thread_id, summary_message("one"), upto=5, base=None, provenance=provenance)
    assert (first.thread_id, first.upto, first.base, first.provenance) == (thread_id, 5, None, provenance)
    assert first.summary == summary_message("one")
    second = store.add_checkpoint(
        thread_id, summary_message("two"), upto=6, base=first.id, checkpoint_id="c2"
    )
    assert second.id == "c2"
    assert store.checkpoints(thread_id) == [first, second]
    assert store.latest_checkpoint(thread_id) == second
    assert store.records(thread_id) == records


def test_a_checkpoint_on_a_base_that_is_no_longer_the_newest_is_refused_with_the_winner(store):
    thread_id = new_thread(store)
    winner = store.add_checkpoint(thread_id, summary_message("won"), upto=5, base=None)
    with pytest.raises(CheckpointConflictError, match="stored by another compactor first") as caught:
        store.add_checkpoint(thread_id, summary_message("lost"), upto=6, base=None)
    assert caught.value.winner == winner
    assert caught.value.base is None
    store.add_checkpoint(thread_id, summary_message("next"), upto=6, base=winner.id)
    with pytest.raises(CheckpointConflictError) as caught:
        store.add_checkpoint(thread_id, summary_message("stale"), upto=7, base=winner.id)
    assert caught.value.winner == store.latest_checkpoint(thread_id)
    assert len(store.checkpoints(thread_id)) == 2


def test_a_checkpoint_must_cover_whole_exchanges_of_the_thread(store):
    thread_id = new_thread(store)
    with pytest.raises(InvalidCheckpointError, match="would cut the tool result there"):
        store.add_checkpoint(thread_id, summary_message("s"), upto=3, base=None)
    with pytest.raises(PositionError, match="past the thread's end") as caught:
        store.add_checkpoint(thread_id, summary_message("s"), upto=8, base=None)
    assert caught.value.position == 8
    with pytest.raises(InvalidCheckpointError, match="at least 1"):
        store.add_checkpoint(thread_id, summary_message("s"), upto=0, base=None)
    first = store.add_checkpoint(thread_id, summary_message("s"), upto=5, base=None)
    with pytest.raises(InvalidCheckpointError, match=r"after its base's position \(5\)"):
        store.add_checkpoint(thread_id, summary_message("s"), upto=5, base=first.id)
    with pytest.raises(InvalidCheckpointError, match="makes no tool calls"):
        store.add_checkpoint(thread_id, AIMessage(content=None, tool_calls=[CALL]), upto=6, base=first.id)
    with pytest.raises(InvalidCheckpointError, match="already has a checkpoint with id"):
        store.add_checkpoint(thread_id, summary_message("s"), upto=6, base=first.id, checkpoint_id=first.id)
    assert store.checkpoints(thread_id) == [first]


def test_deleting_a_checkpoint_undoes_it_and_those_built_on_it(store):
    thread_id = new_thread(store)
    window = Compactor(Scripted(), limit=4, trigger=3, keep=1).window()
    before = read(store, LocalThread(id=thread_id), window)
    first = store.add_checkpoint(thread_id, summary_message("one"), upto=2, base=None)
    second = store.add_checkpoint(thread_id, summary_message("two"), upto=5, base=first.id)
    assert read(store, LocalThread(id=thread_id), window)[1] == summary_message("two")
    assert store.delete_checkpoint(thread_id, first.id) == [second.id, first.id]
    assert store.checkpoints(thread_id) == []
    assert read(store, LocalThread(id=thread_id), window) == before
    with pytest.raises(CheckpointNotFoundError, match="has no checkpoint with id"):
        store.delete_checkpoint(thread_id, first.id)


def test_checkpoints_of_a_missing_or_remote_thread_raise_as_its_messages_do(store):
    with pytest.raises(ThreadNotFoundError):
        store.latest_checkpoint("nope")
    with pytest.raises(ThreadNotFoundError):
        store.add_checkpoint("nope", summary_message("s"), upto=1, base=None)
    store.save_thread(RemoteThread(id="remote"))
    with pytest.raises(ThreadKindError):
        store.checkpoints("remote")
    thread_id = new_thread(store)
    store.add_checkpoint(thread_id, summary_message("s"), upto=5, base=None)
    store.delete_thread(thread_id)  # its checkpoints and counts go with it
    with pytest.raises(ThreadNotFoundError):
        store.checkpoints(thread_id)


def test_token_counts_are_saved_once_per_counter_and_read_by_position(store):
    thread_id = new_thread(store)
    assert store.token_counts(thread_id, "litellm:gpt-4o-mini") == [None] * 7
    store.save_token_counts(thread_id, "litellm:gpt-4o-mini", {0: 12, 3: 7})
    store.save_token_counts(thread_id, "litellm:gpt-4o-mini", {3: 99, 4: 5})  # 3 keeps its first count
    store.save_token_counts(thread_id, "other", {0: 1})
    assert store.token_counts(thread_id, "litellm:gpt-4o-mini") == [12, None, None, 7, 5, None, None]
    assert store.token_counts(thread_id, "litellm:gpt-4o-mini", -4, -2) == [7, 5]
    with pytest.raises(PositionError, match="position 7, past the thread's end"):
        store.save_token_counts(thread_id, "other", {7: 1})
    with pytest.raises(ValueError, match="a token count is an int of at least 0"):
        store.save_token_counts(thread_id, "other", {1: -1})


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(window=WINDOWS, chunks=turns(), forced=st.lists(st.booleans(), min_size=1, max_size=4))
def test_compaction_over_generated_conversations_keeps_every_invariant_on_every_backend(
    store, window, chunks, forced
):
    run_conversation(store, window, chunks, forced)


def test_a_summary_that_fails_leaves_the_stored_thread_as_it_was(store):
    thread_id = new_thread(store)
    thread = LocalThread(id=thread_id)

    def broken(request):
        raise ConnectionError("summarizer unreachable")

    compactor = Compactor(broken, limit=4, trigger=3, keep=1)
    before = read(store, thread, compactor.window()), store.records(thread_id)
    with pytest.raises(Exception, match="summarizer raised ConnectionError") as caught:
        compact(store, compactor, thread)
    assert type(caught.value).__name__ == "SummarizerError"
    assert store.checkpoints(thread_id) == []
    assert (read(store, thread, compactor.window()), store.records(thread_id)) == before
    compactor = Compactor(Scripted(), limit=4, trigger=3, keep=1)
    compact(store, compactor, thread)
    assert reference_read(compactor.window(), THREAD, store.latest_checkpoint(thread_id)) == read(
        store, thread, compactor.window()
    )


MODULES = {"sqlite": sqlite_module, "postgres": postgres_module}


def test_a_store_of_the_previous_schema_is_upgraded_on_opening_and_keeps_its_data(
    durable_backend, make_spec, monkeypatch
):
    spec = make_spec(durable_backend)
    module = MODULES[durable_backend.split("-")[0]]
    with monkeypatch.context() as patch:  # the store as the version before checkpoints wrote it
        patch.setattr(module, "MIGRATIONS", module.MIGRATIONS[:-1])
        old = open_store(spec)
        thread_id = new_thread(old)
        records = old.records(thread_id)
        old.close()
    names = [name for (name,) in raw_rows(spec, "SELECT name FROM thread_store_migrations")]
    assert module.MIGRATIONS[-1].name not in names
    store = open_store(spec)
    assert store.records(thread_id) == records
    checkpoint = store.add_checkpoint(thread_id, summary_message("s"), upto=5, base=None)
    assert store.latest_checkpoint(thread_id) == checkpoint
    store.save_token_counts(thread_id, "c", {0: 3})
    assert store.token_counts(thread_id, "c", 0, 1) == [3]
    store.close()
