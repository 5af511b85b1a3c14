"""``pop``: the store contract's one removal of a single message, run against every backend in both flavours
(the ``store`` fixture). The newest message leaves with its envelope, exactly as ``records()`` read it,
under the thread's write lock; the checkpoints that covered it and its token counts leave with it."""

from __future__ import annotations

import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from messages import (
    AIMessage,
    CorruptDataError,
    InvalidThreadIdError,
    LocalThread,
    RemoteThread,
    StoreClosedError,
    SystemMessage,
    ThreadKindError,
    ThreadNotFoundError,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from messages import strategies as ms
from messages.compaction import Compactor, summary_message
from tests.compaction_cases import compact, read
from tests.stores._backends import open_store, raw_rows, write_lock_held

CALL = ToolCall(id="call_1", name="get_weather", arguments='{"city": "Paris"}')


def exchange(n: int) -> list[UserMessage | AIMessage | ToolMessage]:
    call = ToolCall(id=f"call_{n}_w", name="get_weather", arguments=f'{{"day": {n}}}')
    return [
        UserMessage(content=f"Weather on day {n}?"),
        AIMessage(content=None, tool_calls=[call]),
        ToolMessage(tool_call_id=call.id, content="rain"),
        AIMessage(content="Rain."),
    ]


TURN = [
    SystemMessage(content="You are terse."),
    UserMessage(content="Weather in Paris?"),
    AIMessage(content=None, tool_calls=[CALL]),
    ToolMessage(tool_call_id="call_1", content='{"sky": "rain"}'),
    AIMessage(content="Rain."),
]


def test_pop_returns_the_newest_record_exactly_and_the_rest_stays(store):
    thread_id = store.create_thread()
    store.append(thread_id, TURN[:4])
    store.append(thread_id, TURN[4], ids=["answer"], metadata={"sdk": {"item": '{"k": [1, "é"]}'}})
    before = store.records(thread_id)

    popped = store.pop(thread_id)

    assert popped == before[-1]
    assert (popped.position, popped.id, popped.message) == (4, "answer", TURN[4])
    assert popped.metadata == {"sdk": {"item": '{"k": [1, "é"]}'}}
    assert store.records(thread_id) == before[:-1]
    assert store.thread_info(thread_id).length == 4


def test_pops_take_the_messages_back_newest_first_then_the_empty_thread_pops_none(store):
    thread_id = store.create_thread()
    store.append(thread_id, TURN)
    popped = [store.pop(thread_id) for _ in TURN]
    assert [record.message for record in popped] == TURN[::-1]
    assert [record.position for record in popped] == [4, 3, 2, 1, 0]
    assert store.pop(thread_id) is None
    assert store.messages(thread_id) == []
    assert store.thread_info(thread_id).length == 0


def test_a_check_that_raises_undoes_the_pop_and_the_message_stays_exactly(store):
    thread_id = store.create_thread()
    store.append(thread_id, TURN, metadata=[{"n": n} for n in range(len(TURN))])
    before = store.records(thread_id)
    seen = []

    class RefusedError(Exception):
        pass

    def refuse(record):
        seen.append(record)
        raise RefusedError("not this one")

    with pytest.raises(RefusedError, match="not this one"):
        store.pop(thread_id, check=refuse)
    assert seen == [before[-1]]  # it saw the record the pop would have returned
    assert store.records(thread_id) == before  # position, id, metadata and time unchanged
    assert store.thread_info(thread_id).length == len(TURN)
    # A check that returns lets the pop go on.
    assert store.pop(thread_id, check=seen.append) == before[-1]
    assert seen[-1] == before[-1]
    assert store.records(thread_id) == before[:-1]


def test_a_popped_id_and_position_are_free_again(store):
    thread_id = store.create_thread()
    store.append(thread_id, TURN[:2], ids=["u0", "u1"])
    assert store.pop(thread_id).id == "u1"
    # The id is not held any more: skip_existing adds the message, at the freed position.
    assert store.append(thread_id, UserMessage(content="again"), ids=["u1"], skip_existing=True) == range(
        1, 2
    )
    assert [(r.position, r.id, r.message) for r in store.records(thread_id)] == [
        (0, "u0", TURN[0]),
        (1, "u1", UserMessage(content="again")),
    ]


def test_pop_refuses_what_every_store_call_refuses(store):
    with pytest.raises(ThreadNotFoundError):
        store.pop("no-such-thread")
    with pytest.raises(InvalidThreadIdError):
        store.pop("")
    store.save_thread(RemoteThread(id="remote", response_id="resp_1"))
    with pytest.raises(ThreadKindError, match=r"'remote' is a remote thread.*popped from it here"):
        store.pop("remote")


def test_pop_on_a_closed_store_raises_store_closed(store):
    thread_id = store.create_thread()
    store.append(thread_id, TURN)
    store.close()
    with pytest.raises(StoreClosedError, match=r"pop\(\) on thread"):
        store.pop(thread_id)


def test_a_pop_below_a_checkpoint_removes_it_and_those_built_on_it_and_keeps_the_ones_below(store):
    thread_id = store.create_thread()
    store.append(thread_id, [*TURN, UserMessage(content="And Rome?"), AIMessage(content="Sun.")])
    first = store.add_checkpoint(thread_id, summary_message("weather in Paris"), upto=5, base=None)
    second = store.add_checkpoint(thread_id, summary_message("and Rome"), upto=7, base=first.id)

    store.pop(thread_id)  # position 6: the second checkpoint covered it (upto 7), the first did not
    assert [c.id for c in store.checkpoints(thread_id)] == [first.id]
    store.pop(thread_id)  # position 5: the first checkpoint covers up to 5, the new length: it stays
    assert store.latest_checkpoint(thread_id) == first
    store.pop(thread_id)  # position 4, which the first covered
    assert store.checkpoints(thread_id) == []
    assert second.id not in [c.id for c in store.checkpoints(thread_id)]
    assert store.messages(thread_id) == TURN[:4]
    # The chain starts again from nothing.
    store.add_checkpoint(thread_id, summary_message("again"), upto=2, base=None)


def test_a_popped_message_takes_its_token_counts_with_it(store):
    thread_id = store.create_thread()
    store.append(thread_id, TURN[:2])
    store.save_token_counts(thread_id, "words", {0: 3, 1: 4})
    store.save_token_counts(thread_id, "chars", {1: 17})
    store.pop(thread_id)
    store.append(thread_id, UserMessage(content="a different question, counted afresh"))
    assert store.token_counts(thread_id, "words") == [3, None]
    assert store.token_counts(thread_id, "chars") == [None, None]


def test_a_compactor_that_read_the_thread_before_a_pop_reads_it_again(store):
    # The window read saw a checkpoint covering the whole thread: nothing due. The pop removes that
    # checkpoint, so the whole thread is unsummarized again and compaction is due; a compactor deciding
    # from what it read (and what this process appended since: nothing) would skip it.
    compactor = Compactor(lambda request: f"{len(request.messages)} summarized.", limit=8)
    thread = LocalThread()
    store.save_thread(thread)
    store.append(thread.id, [TURN[0], *(m for n in range(6) for m in exchange(n))])
    store.add_checkpoint(thread.id, summary_message("all of it"), upto=25, base=None)
    read(store, thread, compactor.window())
    store.pop(thread.id)
    assert store.checkpoints(thread.id) == []
    done = compact(store, compactor, thread)
    assert done.due
    assert done.written


def test_concurrent_pops_each_take_a_different_message_and_none_is_lost(store):
    thread_id = store.create_thread()
    messages = [UserMessage(content=f"m{i}") for i in range(24)]
    store.append(thread_id, messages)
    popped: list[object] = []
    lock = threading.Lock()

    def pop_some() -> None:
        for _ in range(4):
            record = store.pop(thread_id)
            with lock:
                popped.append(record)

    workers = [threading.Thread(target=pop_some) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(record.position for record in popped) == list(range(8, 24))
    assert {record.message.content for record in popped} == {f"m{i}" for i in range(8, 24)}
    assert store.messages(thread_id) == messages[:8]


def test_pops_beside_appends_leave_a_thread_with_contiguous_positions(store):
    thread_id = store.create_thread()
    store.append(thread_id, [UserMessage(content="seed")] * 10)
    popped: list[object] = []
    appended: list[str] = []
    lock = threading.Lock()

    def append_some(worker: int) -> None:
        for i in range(5):
            text = f"w{worker}-{i}"
            store.append(thread_id, UserMessage(content=text))
            with lock:
                appended.append(text)

    def pop_some() -> None:
        for _ in range(5):
            record = store.pop(thread_id)
            with lock:
                popped.append(record)

    workers = [threading.Thread(target=append_some, args=(n,)) for n in range(2)]
    workers += [threading.Thread(target=pop_some) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    records = store.records(thread_id)
    assert [r.position for r in records] == list(range(len(records)))
    assert len(records) == 10 + 10 - 10
    # Every message is either still there or was popped, once.
    kept = [r.message.content for r in records]
    taken = [r.message.content for r in popped]
    assert sorted(kept + taken) == sorted(["seed"] * 10 + appended)


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    steps=st.lists(
        st.one_of(st.lists(ms.messages(), min_size=1, max_size=3), st.just("pop")), min_size=1, max_size=12
    )
)
def test_pop_returns_what_a_list_pop_would(store, steps):
    thread_id = store.create_thread()
    model: list[tuple[str, object, dict[str, int]]] = []  # (id, message, metadata) as a list keeps them
    for number, step in enumerate(steps):
        if step == "pop":
            record = store.pop(thread_id)
            if not model:
                assert record is None
                continue
            assert record.position == len(model) - 1
            assert (record.id, record.message, record.metadata) == model.pop()
        else:
            ids = [f"s{number}-{i}" for i in range(len(step))]
            store.append(thread_id, step, ids=ids, metadata={"step": number})
            model += [(mid, message, {"step": number}) for mid, message in zip(ids, step, strict=True)]
    assert [(r.id, r.message, r.metadata) for r in store.records(thread_id)] == model


def test_a_pop_waits_for_the_write_lock_another_writer_holds(durable_backend, make_spec):
    spec = make_spec(durable_backend)
    store = open_store(spec)
    try:
        thread_id = store.create_thread()
        store.append(thread_id, TURN)
        done: list[object] = []
        with write_lock_held(spec, thread_id) as release:
            popper = threading.Thread(target=lambda: done.append(store.pop(thread_id)))
            popper.start()
            popper.join(0.3)
            assert done == []  # still waiting for the lock (the async SQLite store's one worker is busy too)
            assert raw_rows(
                spec, "SELECT count(*) FROM thread_store_messages WHERE thread_id = ?", (thread_id,)
            ) == [(5,)]
            release()
            popper.join(30)
        assert [record.message for record in done] == [TURN[4]]
        assert store.messages(thread_id) == TURN[:4]
    finally:
        store.close()


def test_a_newest_row_that_no_longer_reads_is_named_and_stays(durable_backend, make_spec):
    spec = make_spec(durable_backend)
    store = open_store(spec)
    try:
        thread_id = store.create_thread()
        store.append(thread_id, TURN)
        raw_rows(
            spec,
            "UPDATE thread_store_messages SET message = ? WHERE thread_id = ? AND position = ?",
            ('{"role": "robot"}', thread_id, 4),
        )
        with pytest.raises(CorruptDataError, match=f"{thread_id!r}, position 4") as caught:
            store.pop(thread_id)
        assert caught.value.position == 4
        assert store.thread_info(thread_id).length == 5
        assert store.messages(thread_id, 0, 4) == TURN[:4]
        # Once repaired, it pops.
        raw_rows(
            spec,
            "UPDATE thread_store_messages SET message = ? WHERE thread_id = ? AND position = ?",
            (TURN[4].model_dump_json(), thread_id, 4),
        )
        assert store.pop(thread_id).message == TURN[4]
    finally:
        store.close()
