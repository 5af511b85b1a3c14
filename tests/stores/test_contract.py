"""The ThreadStore contract, run unchanged against every backend (the `store` fixture: memory, SQLite,
PostgreSQL). See messages/stores/base.py for the contract itself."""

from __future__ import annotations

import gc
import threading
from datetime import UTC

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from messages import (
    AIMessage,
    ImagePart,
    InvalidThreadIdError,
    LocalThread,
    MessageTypeError,
    RemoteThread,
    StoreClosedError,
    StoreError,
    SystemMessage,
    TextPart,
    ThreadExistsError,
    ThreadKindError,
    ThreadNotFoundError,
    ToolCall,
    ToolMessage,
    UnstorableMessageError,
    UserMessage,
)
from messages import strategies as ms
from messages.stores._sql import SQLThreadStore

CALL = ToolCall(id="call_1", name="get_weather", arguments='{"city": "Paris"}')
CONVERSATION = [
    SystemMessage(content="You are terse."),
    UserMessage(
        content=[TextPart(text="Weather?"), ImagePart(url="https://example.com/sky.png", detail="low")]
    ),
    AIMessage(content=None, tool_calls=[CALL]),
    ToolMessage(tool_call_id="call_1", content='{"sky": "rain"}'),
    AIMessage(content="Rain."),
]


def test_a_new_thread_is_empty_and_listed(store):
    thread_id = store.create_thread()
    assert isinstance(thread_id, str)
    assert thread_id
    assert store.messages(thread_id) == []
    assert store.threads() == [thread_id]
    assert store.load_thread(thread_id) == LocalThread(id=thread_id)
    info = store.thread_info(thread_id)
    assert (info.id, info.kind, info.length) == (thread_id, "local", 0)


def test_create_thread_takes_an_id_and_refuses_a_taken_one(store):
    assert store.create_thread("support-42") == "support-42"
    with pytest.raises(ThreadExistsError, match="'support-42' already exists") as caught:
        store.create_thread("support-42")
    assert isinstance(caught.value, ValueError)
    assert caught.value.thread_id == "support-42"
    assert store.threads() == ["support-42"]


def test_generated_ids_are_distinct(store):
    ids = [store.create_thread() for _ in range(20)]
    assert len(set(ids)) == 20


def test_append_one_or_many_returns_their_positions_and_reads_back_in_order(store):
    thread_id = store.create_thread()
    assert store.append(thread_id, CONVERSATION[0]) == range(1)
    assert store.append(thread_id, CONVERSATION[1:3]) == range(1, 3)
    assert store.append(thread_id, iter(CONVERSATION[3:])) == range(3, 5)  # any iterable, even one-shot
    assert store.messages(thread_id) == CONVERSATION
    assert store.thread_info(thread_id).length == 5


def test_an_empty_append_changes_nothing(store):
    thread_id = store.create_thread()
    store.append(thread_id, CONVERSATION[:2])
    assert store.append(thread_id, []) == range(2, 2)
    assert store.messages(thread_id) == CONVERSATION[:2]


def test_an_append_with_one_bad_item_appends_nothing(store):
    thread_id = store.create_thread()
    store.append(thread_id, CONVERSATION[:1])
    with pytest.raises(MessageTypeError, match="message 1 is a dict"):
        store.append(thread_id, [UserMessage(content="ok"), {"role": "user", "content": "a dict"}])
    with pytest.raises(MessageTypeError, match="got a dict"):
        store.append(thread_id, {"role": "user", "content": "a dict"})
    with pytest.raises(MessageTypeError, match="got a str"):
        store.append(thread_id, "hello")
    assert store.messages(thread_id) == CONVERSATION[:1]


def test_messages_read_back_are_equal_fresh_values(store):
    thread_id = store.create_thread()
    call = ToolCall(id="call_9", name="lookup", arguments="{}")
    message = AIMessage(content=None, tool_calls=[call])
    store.append(thread_id, message)
    message.tool_calls.append(ToolCall(id="call_10", name="lookup"))  # a caller mutating its own object
    [read] = store.messages(thread_id)
    assert read == AIMessage(content=None, tool_calls=[call])
    assert read is not message
    read.tool_calls.clear()
    assert store.messages(thread_id) == [AIMessage(content=None, tool_calls=[call])]


def test_text_that_databases_treat_specially_reads_back_exactly(store):
    # NUL (PostgreSQL text cannot hold it raw), quotes, backslashes, astral-plane characters, a long text,
    # and byte-exact tool-call arguments that are not even valid JSON.
    odd = [
        UserMessage(content="nul:\x00 quote:' dquote:\" backslash:\\ emoji:\U0001f600 cjk:\u4e2d\u6587"),
        UserMessage(content="x" * 1_000_000),
        AIMessage(content=None, tool_calls=[ToolCall(id="c", name="f", arguments='{"a": 1,, "b"')]),
        ToolMessage(tool_call_id="c", content="\u2028\u2029 line separators"),
    ]
    thread_id = store.create_thread()
    store.append(thread_id, odd)
    assert store.messages(thread_id) == odd
    assert store.messages(thread_id)[2].tool_calls[0].arguments == '{"a": 1,, "b"'


@pytest.mark.parametrize(
    ("start", "stop"),
    [
        (0, None),
        (2, None),
        (0, 3),
        (1, 4),
        (-2, None),
        (0, -1),
        (-4, -2),
        (3, 1),
        (10, None),
        (-10, 2),
        (5, 5),
    ],
)
def test_messages_slice_by_position_as_a_list_does(store, start, stop):
    thread_id = store.create_thread()
    store.append(thread_id, CONVERSATION)
    assert store.messages(thread_id, start, stop) == CONVERSATION[start:stop]


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    batches=st.lists(st.lists(ms.messages(), max_size=4), max_size=5),
    start=st.integers(-12, 12),
    stop=st.none() | st.integers(-12, 12),
)
def test_appended_batches_read_back_as_their_concatenation(store, batches, start, stop):
    thread_id = store.create_thread()  # a new thread per example: the store is shared by the examples
    expected = []
    for batch in batches:
        positions = store.append(thread_id, batch)
        assert positions == range(len(expected), len(expected) + len(batch))
        expected.extend(batch)
    assert store.messages(thread_id) == expected
    assert store.messages(thread_id, start, stop) == expected[start:stop]
    assert store.thread_info(thread_id).length == len(expected)


@pytest.mark.parametrize("ahead", [False, True], ids=["inline", "ahead"])
@pytest.mark.parametrize("span", [1, 2, 3, 7])
def test_a_read_in_many_spans_gives_the_same_messages(store, monkeypatch, span, ahead):
    # The SQL backends fetch a long range in spans, inline or the next one by a helper thread.
    monkeypatch.setattr(SQLThreadStore, "_span", span)
    if isinstance(store, SQLThreadStore):
        monkeypatch.setattr(type(store), "_fetch_ahead", ahead)
    thread_id = store.create_thread()
    conversation = [UserMessage(content=f"m{n}") for n in range(20)]
    store.append(thread_id, conversation)
    for start, stop in [(0, None), (1, 19), (-7, None), (5, 6), (3, 3)]:
        assert store.messages(thread_id, start, stop) == conversation[start:stop]
    store.append(thread_id, CONVERSATION)  # the connection is free again for writes
    assert store.messages(thread_id, 20) == CONVERSATION


def test_threads_lists_every_thread_oldest_first(store):
    ids = [store.create_thread(f"t{n}") for n in range(5)]
    store.save_thread(RemoteThread(id="remote"))
    store.delete_thread("t2")
    assert store.threads() == ["t0", "t1", "t3", "t4", "remote"]
    assert ids[2] not in store.threads()


def test_delete_thread_removes_the_thread_and_its_messages(store):
    keep = store.create_thread("keep")
    gone = store.create_thread("gone")
    store.append(keep, CONVERSATION[:2])
    store.append(gone, CONVERSATION)
    store.delete_thread(gone)
    assert store.threads() == ["keep"]
    with pytest.raises(ThreadNotFoundError):
        store.messages(gone)
    assert store.messages(keep) == CONVERSATION[:2]
    # The id is free again, and the new thread starts empty: no message of the old one comes back.
    store.create_thread("gone")
    assert store.messages("gone") == []
    assert store.append("gone", CONVERSATION[0]) == range(1)


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.append("nope", UserMessage(content="hi")),
        lambda s: s.append("nope", []),
        lambda s: s.messages("nope"),
        lambda s: s.messages("nope", 1, 2),
        lambda s: s.delete_thread("nope"),
        lambda s: s.load_thread("nope"),
        lambda s: s.thread_info("nope"),
    ],
    ids=[
        "append",
        "append-empty",
        "messages",
        "messages-slice",
        "delete_thread",
        "load_thread",
        "thread_info",
    ],
)
def test_every_method_taking_a_thread_id_raises_thread_not_found(store, call):
    store.create_thread("other")
    with pytest.raises(ThreadNotFoundError, match="no thread with id 'nope'") as caught:
        call(store)
    assert isinstance(caught.value, KeyError)
    assert caught.value.thread_id == "nope"
    assert store.threads() == ["other"]  # nothing was created on the way


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        ("", "cannot be empty"),
        (42, "not a int"),
        ("x" * 256, "at most 255"),
        ("a\x00b", "NUL"),
        ("a\ud800b", r"lone surrogate \('\\ud800'\) at index 1"),
    ],
)
def test_bad_thread_ids_are_refused(store, bad, match):
    with pytest.raises(InvalidThreadIdError, match=match):
        store.create_thread(bad)
    with pytest.raises(InvalidThreadIdError, match=match):
        store.messages(bad)
    with pytest.raises(InvalidThreadIdError, match=match):
        store.save_thread(LocalThread.model_construct(kind="local", id=bad, context_state={}))


def test_the_longest_thread_id_is_accepted(store):
    longest = "é" * 255
    assert store.create_thread(longest) == longest
    store.append(longest, CONVERSATION[0])
    assert store.messages(longest) == CONVERSATION[:1]


def test_save_and_load_a_local_thread_with_its_context_state(store):
    thread = LocalThread(id="local-1").with_context(
        "memory", {"user": "ada", "facts": ["likes rain", 3, None]}
    )
    store.save_thread(thread)
    store.append("local-1", CONVERSATION[:2])
    loaded = store.load_thread("local-1")
    assert type(loaded) is LocalThread
    assert loaded == thread
    # Saving again replaces the value and keeps the messages.
    store.save_thread(loaded.with_context("summary", "asked about the weather"))
    assert store.load_thread("local-1").context_state == {
        "memory": {"user": "ada", "facts": ["likes rain", 3, None]},
        "summary": "asked about the weather",
    }
    assert store.messages("local-1") == CONVERSATION[:2]


def test_save_and_load_a_remote_thread_with_its_pending_messages(store):
    thread = RemoteThread(
        id="remote-1",
        response_id="resp_123",
        open_calls=("call_1",),
        pending=(ToolMessage(tool_call_id="call_1", content="12 C"), UserMessage(content="and tomorrow?")),
        context_state={"crm": {"account": 7}},
    )
    store.save_thread(thread)
    loaded = store.load_thread("remote-1")
    assert type(loaded) is RemoteThread
    assert loaded == thread
    assert store.thread_info("remote-1").kind == "remote"


@pytest.mark.parametrize(
    ("call", "action"),
    [
        (lambda s: s.append("remote-1", UserMessage(content="hi")), "appended to"),
        (lambda s: s.append("remote-1", []), "appended to"),
        (lambda s: s.messages("remote-1"), "read from"),
        (lambda s: s.messages("remote-1", -1), "read from"),
    ],
    ids=["append", "append-empty", "messages", "messages-slice"],
)
def test_a_remote_thread_has_no_messages_in_the_store(store, call, action):
    # The service keeps a remote thread's history: messages stored beside it would contradict it (the
    # contradiction Agent Framework's thread ADR is about).
    thread = RemoteThread(id="remote-1", response_id="resp_1", pending=(UserMessage(content="q"),))
    store.save_thread(thread)
    with pytest.raises(
        ThreadKindError, match=rf"^thread 'remote-1' is a remote thread, .* can be {action} it here"
    ):
        call(store)
    assert store.load_thread("remote-1") == thread
    assert store.thread_info("remote-1").length == 0


def test_save_thread_refuses_to_change_a_thread_s_kind(store):
    remote = RemoteThread(id="r", response_id="resp_1", open_calls=("call_1",))
    store.save_thread(remote)
    with pytest.raises(
        ThreadKindError, match=r"'r' is saved as a remote thread.*lose its response_id"
    ) as caught:
        store.save_thread(LocalThread(id="r"))
    assert isinstance(caught.value, ValueError)
    assert (caught.value.thread_id, caught.value.kind) == ("r", "remote")
    assert store.load_thread("r") == remote  # the response id and the open call are still there
    store.create_thread("l")
    store.append("l", CONVERSATION[:1])
    with pytest.raises(ThreadKindError, match=r"'l' is saved as a local thread.*delete_thread"):
        store.save_thread(RemoteThread(id="l"))
    assert store.load_thread("l") == LocalThread(id="l")
    assert store.messages("l") == CONVERSATION[:1]
    # Same kind: replaced. After a delete, the id takes either kind.
    store.save_thread(remote.with_context("crm", 1))
    assert store.load_thread("r").context_state == {"crm": 1}
    store.delete_thread("r")
    store.save_thread(LocalThread(id="r"))
    assert store.messages("r") == []


def test_save_thread_creates_a_thread_that_takes_messages(store):
    store.save_thread(LocalThread(id="saved"))
    assert store.threads() == ["saved"]
    assert store.append("saved", CONVERSATION[:3]) == range(3)
    assert store.messages("saved") == CONVERSATION[:3]


def test_a_message_with_a_lone_surrogate_is_refused_naming_the_field(store):
    thread_id = store.create_thread()
    bad = [
        UserMessage(content="fine"),
        AIMessage(content=None, tool_calls=[ToolCall(id="c", name="f", arguments='{"q": "x\ud800"}')]),
    ]
    with pytest.raises(
        UnstorableMessageError, match=r"^message 1 cannot be stored: its tool_calls\[0\]"
    ) as caught:
        store.append(thread_id, bad)
    assert isinstance(caught.value, ValueError)
    assert (caught.value.index, caught.value.field) == (1, "tool_calls[0].function.arguments")
    with pytest.raises(UnstorableMessageError, match="its content is not valid Unicode"):
        store.append(thread_id, UserMessage(content="x\udfffy"))
    assert store.messages(thread_id) == []  # all or nothing


@pytest.mark.parametrize(
    ("start", "stop", "match"),
    [
        (0.5, None, "start is a position.*not a float"),
        ("1", None, "not a str"),
        (0, 2.0, "stop is a position"),
    ],
)
def test_positions_that_are_not_ints_are_refused_by_name(store, start, stop, match):
    thread_id = store.create_thread()
    store.append(thread_id, CONVERSATION)
    with pytest.raises(TypeError, match=match):
        store.messages(thread_id, start, stop)
    assert store.messages(thread_id, None, True) == CONVERSATION[:1]  # None and bool are what a slice takes


def test_save_thread_takes_only_threads(store):
    with pytest.raises(TypeError, match="LocalThread or a RemoteThread, not a dict"):
        store.save_thread({"kind": "local", "id": "x"})


def test_thread_info_keeps_utc_timestamps_that_move_on_append(store):
    thread_id = store.create_thread()
    before = store.thread_info(thread_id)
    assert before.created_at.tzinfo is UTC
    assert before.updated_at.tzinfo is UTC
    assert before.created_at <= before.updated_at
    store.append(thread_id, CONVERSATION[0])
    after = store.thread_info(thread_id)
    assert after.created_at == before.created_at
    assert after.updated_at >= before.updated_at
    assert after.length == 1


def test_appends_from_many_threads_of_one_process_interleave_whole(store):
    thread_id = store.create_thread()
    workers, per_worker, batch = 6, 20, 3
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for n in range(per_worker):
                store.append(thread_id, [UserMessage(content=f"w{worker}:{n}:{k}") for k in range(batch)])
        except BaseException as exc:  # reported below: an exception in a thread would otherwise vanish
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    contents = [m.content for m in store.messages(thread_id)]
    assert len(contents) == workers * per_worker * batch
    # Each call's messages are contiguous, and each worker's calls keep their order.
    for start in range(0, len(contents), batch):
        worker, n, _ = contents[start].split(":")
        assert contents[start : start + batch] == [f"{worker}:{n}:{k}" for k in range(batch)]
    for worker in range(workers):
        mine = [c for c in contents if c.startswith(f"w{worker}:")]
        assert mine == [f"w{worker}:{n}:{k}" for n in range(per_worker) for k in range(batch)]


def test_a_closed_store_says_so_naming_the_operation_and_the_thread(store):
    store.create_thread("t")
    store.close()
    calls = {
        "create_thread": lambda: store.create_thread("u"),
        "append": lambda: store.append("t", UserMessage(content="hi")),
        "messages": lambda: store.messages("t"),
        "delete_thread": lambda: store.delete_thread("t"),
        "save_thread": lambda: store.save_thread(LocalThread(id="t")),
        "load_thread": lambda: store.load_thread("t"),
        "thread_info": lambda: store.thread_info("t"),
        "threads": store.threads,
    }
    for operation, call in calls.items():
        with pytest.raises(
            StoreClosedError, match=rf"^{operation}\(\).* is closed; open a new store"
        ) as info:
            call()
        thread_id = {"create_thread": "u", "threads": None}.get(operation, "t")
        assert (info.value.operation, info.value.thread_id) == (operation, thread_id)
        assert isinstance(info.value, StoreError)
    store.close()  # closing again is harmless


def test_no_collection_runs_while_a_thread_is_read_and_the_collector_is_left_on(store, monkeypatch):
    # Spans of 50 rows on the SQL stores: the pause covers the whole read, not one span.
    monkeypatch.setattr(SQLThreadStore, "_span", 50)
    thread_id = store.create_thread()
    store.append(thread_id, [UserMessage(content=f"message {n}") for n in range(2_000)])
    started: list[int] = []
    inside = [False]

    def record(phase, info):
        if phase == "start" and inside[0]:
            started.append(info["generation"])

    enabled = gc.isenabled()
    gc.enable()
    gc.callbacks.append(record)
    try:
        inside[0] = True
        read = store.messages(thread_id)
        inside[0] = False
        # At most one: the collection that the objects made during the pause set off once it ends (read
        # unpaused, 2,000 messages set off several).
        assert len(started) <= 1
        assert gc.isenabled()
        assert len(read) == 2_000
    finally:
        inside[0] = False
        gc.callbacks.remove(record)
        (gc.enable if enabled else gc.disable)()
