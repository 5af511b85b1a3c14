"""The stores across processes (SQLite and PostgreSQL): concurrent appenders, a killed appender, a thread
continued in another process, processes opening a new store at once. The children are real processes
(tests/stores/_child.py), not threads: they hold their own connections, as separate workers would."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from messages import (
    AIMessage,
    InMemoryThreadStore,
    LocalThread,
    RemoteThread,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    load_messages,
    validate_conversation,
)
from messages.stores import postgres as postgres_module
from messages.stores import sqlite as sqlite_module
from messages.testing import OpenAIResponsesRoute, StandInServer, scripted
from tests.stores._backends import open_store, raw_rows, until
from tests.stores._child import (
    SECOND_PART,
    append_loop,
    append_n,
    append_turns,
    batch,
    compact_until,
    open_once,
    replay_turns,
    replayed_turn,
    turn,
)

ROOT = Path(__file__).resolve().parents[2]
CRASH_ROUNDS = 20
CRASH_SEED = int(os.environ.get("MESSAGES_CRASH_SEED", "20261122"))

pytestmark = pytest.mark.slow


def spawn(command: str, spec: dict[str, object], *args: str) -> subprocess.Popen[str]:
    """A child in a fresh interpreter (tests/stores/_child.py commands)."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.stores._child", command, json.dumps(spec), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(child: subprocess.Popen[str], timeout: float = 120) -> str:
    """The child's stdout, after checking that it exited cleanly."""
    out, err = child.communicate(timeout=timeout)
    assert child.returncode == 0, f"child failed ({child.returncode}):\n{err}"
    return out


def join_all(children: list, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    for child in children:
        child.join(max(0.1, deadline - time.monotonic()))
    for child in children:
        if child.is_alive():
            child.kill()
        assert child.exitcode == 0, f"{child.name} exited with {child.exitcode} (its traceback is above)"


def test_four_processes_appending_500_messages_each_at_once_lose_nothing(
    durable_backend, make_spec, processes
):
    spec = make_spec(durable_backend)
    store = open_store(spec)
    thread_id = store.create_thread()
    barrier = processes.Barrier(4)
    children = [
        processes.Process(
            target=append_n, args=(spec, thread_id, worker, 500, barrier), name=f"worker {worker}"
        )
        for worker in range(4)
    ]
    for child in children:
        child.start()
    join_all(children)

    contents = [m.content for m in store.messages(thread_id)]
    assert len(contents) == 2000
    assert len(set(contents)) == 2000, "a message was stored twice"
    for worker in range(4):
        mine = [c for c in contents if c.startswith(f"w{worker}:")]
        assert mine == [f"w{worker}:{n}" for n in range(500)], (
            f"worker {worker}: messages out of order or lost"
        )
    assert store.thread_info(thread_id).length == 2000
    store.close()


def test_four_processes_replaying_the_same_turns_at_once_store_each_once_in_order(
    durable_backend, make_spec, processes
):
    spec = make_spec(durable_backend)
    store = open_store(spec)
    thread_id = store.create_thread()
    barrier = processes.Barrier(4)
    children = [
        processes.Process(target=replay_turns, args=(spec, thread_id, 25, barrier), name=f"replayer {n}")
        for n in range(4)
    ]
    for child in children:
        child.start()
    join_all(children)
    expected_messages, expected_ids = [], []
    for number in range(25):
        messages, ids = replayed_turn(number)
        expected_messages += messages
        expected_ids += ids
    records = store.records(thread_id)
    assert [r.id for r in records] == expected_ids, "a turn was stored twice, or out of order"
    assert [r.message for r in records] == expected_messages
    assert store.thread_info(thread_id).length == 100
    store.close()


def test_an_appender_killed_at_random_moments_loses_no_acknowledged_append_and_tears_nothing(
    durable_backend, make_spec, processes
):
    spec = make_spec(durable_backend)
    rng = random.Random(CRASH_SEED)
    setup = open_store(spec)
    lengths: dict[str, int] = {}
    in_flight_committed = 0
    for round_ in range(CRASH_ROUNDS):
        thread_id = setup.create_thread(f"crash-{round_}")
        receiver, sender = processes.Pipe(duplex=False)
        child_spec, name = named_connections(spec, f"appender-{os.getpid()}-{round_}")
        child = processes.Process(
            target=append_loop, args=(child_spec, thread_id, sender), name=f"appender {round_}"
        )
        child.start()
        sender.close()  # the child's end: once it dies, the pipe ends (EOF) after what it sent
        assert receiver.poll(60), f"round {round_}: the appender acknowledged nothing"
        acks = [receiver.recv()]
        time.sleep(rng.uniform(0.0, 0.15))
        child.kill()  # SIGKILL
        child.join(30)
        assert child.exitcode == -signal.SIGKILL
        while True:  # every acknowledgement sent before the kill
            try:
                acks.append(receiver.recv())
            except EOFError:
                break
        receiver.close()
        if name is not None:
            server_done_with(spec, name)
        last_acked = acks[-1][0]
        assert [number for number, _ in acks] == list(range(last_acked + 1))

        with open_store(spec) as reopened:  # new connections, as a restarted worker would have
            stored = reopened.messages(thread_id)
        expected: list = []
        starts: dict[int, int] = {}
        number = 0
        while len(expected) < len(stored):
            starts[number] = len(expected)
            expected.extend(batch(number))
            number += 1
        # Whole batches only (a torn batch would end short of a batch boundary and differ from
        # `expected`), every message byte-exact, in order.
        assert stored == expected, f"round {round_}: the stored messages are not whole batches"
        committed = number - 1
        assert committed >= last_acked, f"round {round_}: acknowledged batch {last_acked} is missing"
        assert committed <= last_acked + 1, f"round {round_}: more batches than were ever sent"
        in_flight_committed += committed == last_acked + 1
        assert all(starts[number] == first for number, first in acks)
        lengths[thread_id] = len(stored)
    # Every earlier round's thread is still whole after all the kills that followed it.
    with open_store(spec) as reopened:
        for thread_id, length in lengths.items():
            assert reopened.thread_info(thread_id).length == length
            assert len(reopened.messages(thread_id)) == length
    if durable_backend.startswith("sqlite"):
        assert raw_rows(spec, "PRAGMA integrity_check") == [("ok",)]
    setup.close()
    # How often the kill fell after a commit but before its acknowledgement: kills do land mid-append.
    print(f"\n{durable_backend}: {in_flight_committed} of {CRASH_ROUNDS} kills fell between commit and ack")


def named_connections(spec: dict, name: str) -> tuple[dict, str | None]:
    """For PostgreSQL, ``spec`` with its connections named ``name`` (``application_name``), and the name."""
    if spec["backend"] != "postgres":
        return spec, None
    from psycopg.conninfo import make_conninfo

    return {**spec, "dsn": make_conninfo(spec["dsn"], application_name=name)}, name


def server_done_with(spec: dict, name: str) -> None:
    """Wait until the server has ended the killed child's backends (named ``name``): a statement it had
    sent is then committed or rolled back, not still running, and the test reads the final state."""
    query = "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?"
    until(lambda: raw_rows(spec, query, (name,)) == [(0,)], f"the server ends {name}'s backends")


FIRST_PART = [
    SystemMessage(content="You are a weather bot."),
    UserMessage(content="Weather in Paris?"),
    AIMessage(
        content=None, tool_calls=[ToolCall(id="call_paris", name="get_weather", arguments='{"city":"Paris"}')]
    ),
    ToolMessage(tool_call_id="call_paris", content='{"sky": "rain"}'),
    AIMessage(content="Rain in Paris."),
]


def continue_here(thread: LocalThread, store) -> LocalThread:
    """The continuation the child performs, done in this process: the reference it must match."""
    thread.append(store, SECOND_PART)
    return thread.with_context(
        "memory", {**thread.context_state["memory"], "turns": len(thread.messages(store))}
    )


def test_a_local_thread_saved_reloaded_in_a_new_process_and_continued_gives_the_same_conversation(
    durable_backend, make_spec
):
    spec = make_spec(durable_backend)
    store = open_store(spec)
    thread = LocalThread(id="conversation-1").with_context("memory", {"user": "ada"})
    store.save_thread(thread)
    thread.append(store, FIRST_PART)

    seen = json.loads(finish(spawn("continue-local", spec, thread.id)))
    assert load_messages(seen["read"]) == FIRST_PART  # the new process read the same conversation
    assert seen["context"] == {"memory": {"user": "ada"}}

    reference_store = InMemoryThreadStore()
    reference_store.save_thread(thread)
    thread.append(reference_store, FIRST_PART)
    reference = continue_here(thread, reference_store)

    reloaded = store.load_thread("conversation-1")
    assert reloaded == reference
    assert reloaded.context_state == {"memory": {"user": "ada", "turns": 9}}
    conversation = reloaded.read(store)
    assert conversation == reference.read(reference_store) == FIRST_PART + SECOND_PART
    validate_conversation(conversation)
    store.close()


@pytest.mark.litellm
def test_a_remote_thread_saved_reloaded_in_a_new_process_and_continued(make_spec, litellm):
    # SQLite only: the child imports litellm (seconds), and saving a RemoteThread is the same record on
    # every backend (the contract suite saves and loads one on each).
    spec = make_spec("sqlite")
    store = open_store(spec)
    call = ToolCall(id="call_a", name="get_weather", arguments='{"city":"Paris"}')
    route = OpenAIResponsesRoute()
    replies = scripted(AIMessage(content=None, tool_calls=[call]), AIMessage(content="Rain in Paris."))
    with StandInServer(replies, routes=[route]) as server:
        thread = RemoteThread(id="remote-1").add(
            [SystemMessage(content="Be brief."), UserMessage(content="Paris?")]
        )
        response = litellm.responses(
            model="openai/gpt-4o-mini",
            api_base=server.url,
            api_key="test-key",
            num_retries=0,
            **thread.request(),
        )
        thread, reply = thread.receive(response)
        assert reply.tool_calls == [call]
        store.save_thread(thread)

        seen = json.loads(finish(spawn("continue-remote", spec, thread.id, server.url), timeout=180))

        first, second = server.bodies()
    assert seen["reply"] == {"role": "assistant", "content": "Rain in Paris."}
    # The new process sent the tool result, chained to the response the first process got.
    assert "previous_response_id" not in first
    assert second["previous_response_id"] == route.issued[0]
    assert second["input"] == [
        {"type": "function_call_output", "call_id": "call_a", "output": '{"sky": "rain"}'}
    ]
    reloaded = store.load_thread("remote-1")
    assert type(reloaded) is RemoteThread
    assert (reloaded.pending, reloaded.open_calls, reloaded.context_state) == ((), (), {"turns": 2})
    assert reloaded.response_id not in (None, thread.response_id)
    store.close()


def test_processes_opening_a_new_store_at_once_build_its_schema_once(durable_backend, make_spec, processes):
    spec = make_spec(durable_backend)  # nothing exists yet: the first opening creates the tables
    barrier = processes.Barrier(4)
    children = [processes.Process(target=open_once, args=(spec, barrier)) for _ in range(4)]
    for child in children:
        child.start()
    join_all(children)
    names = [name for (name,) in raw_rows(spec, "SELECT name FROM thread_store_migrations ORDER BY name")]
    module = sqlite_module if durable_backend.startswith("sqlite") else postgres_module
    assert names == sorted(step.name for step in module.MIGRATIONS)


def drain(receiver) -> list:
    """Everything a child sent before its end of the pipe closed (it exited or was killed)."""
    got = []
    while True:
        try:
            got.append(receiver.recv())
        except EOFError:
            return got


def test_four_processes_compacting_one_thread_beside_appenders_some_killed_store_one_checkpoint_per_base(
    durable_backend, make_spec, processes
):
    spec = make_spec(durable_backend)
    store = open_store(spec)
    thread_id = store.create_thread()
    store.append(thread_id, [SystemMessage(content="Be brief."), *(m for n in range(10) for m in turn(9, n))])
    barrier = processes.Barrier(6)
    stop = processes.Event()
    # Each compactor's count of compactions lost to another so far (its own, so that a kill cannot leave a
    # lock taken).
    lost = [processes.RawValue("i", 0) for _ in range(4)]
    pipes, children = [], []
    for number in range(6):
        receiver, sender = processes.Pipe(duplex=False)
        child_spec, _ = named_connections(spec, f"compaction-{os.getpid()}-{number}")
        if number < 4:
            args = (child_spec, thread_id, barrier, stop, sender, lost[number])
            child = processes.Process(target=compact_until, args=args, name=f"compactor {number}")
        else:
            args = (child_spec, thread_id, number, barrier, sender)
            child = processes.Process(target=append_turns, args=args, name=f"appender {number}")
        child.start()
        sender.close()
        pipes.append(receiver)
        children.append(child)
    # Every child is past the barrier once both appenders have appended (a child killed before it would
    # break the barrier for the others: on a busy machine the forkserver alone can take seconds to start).
    for number in (4, 5):
        assert pipes[number].poll(60), f"appender {number} appended nothing within 60 s"
    rng = random.Random(CRASH_SEED)
    time.sleep(rng.uniform(0.5, 0.8))
    for victim in (children[0], children[4]):  # a compactor and an appender, mid-work
        victim.kill()
        time.sleep(rng.uniform(0.1, 0.3))
    # The survivors go on until they have raced (asserted below), however slowly a busy machine runs them.
    until(lambda: sum(count.value for count in lost[1:]) >= 3, "the surviving compactors race 3 times")
    stop.set()
    children[5].kill()
    for child in children:
        child.join(60)
    assert [child.exitcode for child in children] == [
        -signal.SIGKILL,
        0,
        0,
        0,
        -signal.SIGKILL,
        -signal.SIGKILL,
    ]
    reports = [drain(pipe) for pipe in pipes]
    for number in range(6):
        if spec["backend"] == "postgres":
            server_done_with(spec, f"compaction-{os.getpid()}-{number}")

    with open_store(spec) as reopened:
        chain = reopened.checkpoints(thread_id)
        messages = reopened.messages(thread_id)
    # One checkpoint per base: a chain, each on the one before, none beside it.
    rows = raw_rows(
        spec,
        "SELECT count(*), count(DISTINCT coalesce(base, '')) FROM thread_store_checkpoints "
        "WHERE thread_id = ?",
        (thread_id,),
    )
    assert rows == [(len(chain), len(chain))]
    for previous, checkpoint in zip([None, *chain], chain, strict=False):
        assert checkpoint.base == (previous.id if previous else None)
        assert checkpoint.upto > (previous.upto if previous else 1)
        assert checkpoint.upto <= len(messages)
    outcomes = [report for compactor in reports[1:4] for report in compactor]
    written = sum(count for count, _ in outcomes)
    conflicts = sum(lost for _, lost in outcomes)
    assert len(chain) >= written  # the killed compactor's writes, if any, are in the chain too
    assert conflicts > 0, "the compactors never raced: the test proved nothing"
    # Every acknowledged append is there, whole, in order: compaction lost none of them.
    contents = [m.content for m in messages]
    for worker in (4, 5):
        acked = reports[worker]
        assert acked == list(range(len(acked)))
        mine = [c for c in contents if isinstance(c, str) and c.startswith(f"w{worker}:")]
        assert mine[: 2 * len(acked)] == [m.content for n in acked for m in turn(worker, n)]
        assert len(mine) <= 2 * (len(acked) + 1)  # at most the one in flight when it was killed
    print(f"\n{durable_backend}: {len(chain)} checkpoints, {conflicts} conflicts, {len(messages)} messages")
