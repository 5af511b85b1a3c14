"""The children of the multi-process store tests: real processes, each with its own store and connections.

Functions run in processes started by ``multiprocessing`` (the forkserver context, which has this module
preloaded, so that a child starts in milliseconds rather than re-importing everything):

* ``append_loop``: appends batch after batch (see ``batch``) until killed, sending ``(batch, first
  position)`` down a pipe after each append returns;
* ``append_n``: waits at a barrier with its siblings, then appends N single messages ``w<WORKER>:<i>``;
* ``open_once``: waits at a barrier, then opens the store (the first opening builds its schema);
* ``append_through_outages``: appends ``outage_batch``es to one thread until told to stop, reporting each
  outcome (acknowledged at a position, or the error raised, described by ``describe_error``), while the
  test kills the database server or caps the size of the files this process may write (``cap``: a shared
  number of bytes, 0 for none, applied with ``RLIMIT_FSIZE`` before each append).

Commands run in a fresh interpreter, ``python -m tests.stores._child COMMAND SPEC THREAD [URL]`` (SPEC is the
JSON of a store spec, tests/stores/_backends.py), for the tests where "a new process" must share nothing:

* ``continue-local``: loads the local thread, prints what it read, appends ``SECOND_PART`` and saves the
  thread with a new context state;
* ``continue-remote``: loads the remote thread, answers its open calls, calls the real ``litellm.responses``
  against the stand-in at URL, saves the thread.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import time
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import Synchronized
from multiprocessing.synchronize import Barrier, Event
from typing import Any

from messages import (
    AIMessage,
    LocalThread,
    MaybeWrittenError,
    Message,
    NotWrittenError,
    RemoteThread,
    StoreError,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from tests.stores._backends import open_store

SECOND_PART: list[Message] = [
    UserMessage(content="And in Lyon?"),
    AIMessage(
        content=None, tool_calls=[ToolCall(id="call_lyon", name="get_weather", arguments='{"city":"Lyon"}')]
    ),
    ToolMessage(tool_call_id="call_lyon", content='{"sky": "sun"}'),
    AIMessage(content="Sunny in Lyon."),
]


def batch(number: int) -> list[Message]:
    """Batch ``number`` of the append loop: 1 to 4 messages, some large, every one named by (batch, index).

    Sizes up to ~64 KB make an append take long enough for a kill to land in the middle of one.
    """
    size = 1 + number % 4
    payload = "p" * ((number * 7919) % 65_536)
    return [UserMessage(content=f"{number}:{index}:{payload}") for index in range(size)]


def append_loop(spec: dict[str, Any], thread_id: str, acks: Connection) -> None:
    store = open_store(spec)
    number = 0
    while True:
        positions = store.append(thread_id, batch(number))
        # One small write: a kill cannot split it (a pipe write under PIPE_BUF bytes is atomic).
        acks.send((number, positions.start))
        number += 1


def append_n(spec: dict[str, Any], thread_id: str, worker: int, count: int, barrier: Barrier) -> None:
    store = open_store(spec)
    barrier.wait(timeout=60)  # every sibling is connected: start together
    for index in range(count):
        store.append(thread_id, UserMessage(content=f"w{worker}:{index}"))
    store.close()


def replayed_turn(number: int) -> tuple[list[Message], list[str]]:
    """Turn ``number`` of a conversation, and its messages' ids (as a framework would give them)."""
    call = ToolCall(id=f"call_{number}", name="lookup", arguments="{}")
    messages: list[Message] = [
        UserMessage(content=f"question {number}"),
        AIMessage(content=None, tool_calls=[call]),
        ToolMessage(tool_call_id=call.id, content=f"result {number}"),
        AIMessage(content=f"answer {number}"),
    ]
    return messages, [f"turn{number}-{index}" for index in range(len(messages))]


def replay_turns(spec: dict[str, Any], thread_id: str, turns: int, barrier: Barrier) -> None:
    """Store turns 0 to ``turns - 1`` with ``skip_existing=True``, as a bot replaying its history does,
    starting together with its siblings, which replay the same turns."""
    store = open_store(spec)
    barrier.wait(timeout=60)
    for number in range(turns):
        messages, ids = replayed_turn(number)
        store.append(thread_id, messages, ids=ids, skip_existing=True)
    store.close()


def open_once(spec: dict[str, Any], barrier: Barrier) -> None:
    barrier.wait(timeout=60)
    open_store(spec).close()


def outage_batch(worker: int, number: int) -> list[Message]:
    """Batch ``number`` of worker ``worker`` in the outage tests: 1 to 4 messages of up to 16 KB, each
    named by (worker, batch, index), so that every stored message says which append it came from."""
    size = 1 + number % 4
    payload = "p" * ((number * 7919 + worker * 104_729) % 16_384)
    return [UserMessage(content=f"w{worker}:{number}:{index}:{payload}") for index in range(size)]


def describe_error(exc: BaseException) -> dict[str, Any]:
    """What the outage tests check about an error an append raised (sent to the parent: plain data)."""
    cause = exc.__cause__
    return {
        "type": type(exc).__name__,
        "store_error": isinstance(exc, StoreError),
        "written": "no"
        if isinstance(exc, NotWrittenError)
        else "maybe"
        if isinstance(exc, MaybeWrittenError)
        else None,
        "operation": getattr(exc, "operation", None),
        "thread_id": getattr(exc, "thread_id", None),
        "cause": None if cause is None else f"{type(cause).__module__}.{type(cause).__qualname__}",
        "message": str(exc),
    }


def append_through_outages(
    spec: dict[str, Any],
    thread_id: str,
    worker: int,
    stop: Event,
    cap: Synchronized,  # type: ignore[type-arg]
    reports: Connection,
) -> None:
    """Append ``outage_batch(worker, 0)``, ``(worker, 1)``, ... until ``stop``; report each outcome as
    ``("ok", number, first position, capped)`` or ``("error", number, describe_error(...), capped)``."""
    # A write past RLIMIT_FSIZE raises SIGXFSZ, which kills the process unless ignored; ignored, the write
    # fails with EFBIG, as a full disk fails with ENOSPC.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    applied = 0
    store = open_store(spec)  # one store for the whole run: it must work again without being reopened
    number = 0
    while not stop.is_set():
        if cap.value != applied:
            applied = cap.value
            resource.setrlimit(resource.RLIMIT_FSIZE, (applied or soft, hard))
        try:
            positions = store.append(thread_id, outage_batch(worker, number))
        except Exception as exc:
            reports.send(("error", number, describe_error(exc), bool(applied)))
            time.sleep(0.02)  # as a bot would back off before its next try
        else:
            reports.send(("ok", number, positions.start, bool(applied)))
        number += 1
    reports.send(("stopped", number, None, False))
    reports.close()
    # Leave as a killed process would: no close(), so SQLite's WAL is not checkpointed away, and the next
    # opening recovers the file from it.
    os._exit(0)


def turn(worker: int, number: int) -> list[Message]:
    """Turn ``number`` of appender ``worker`` in the compaction contention test: a question and its answer."""
    return [UserMessage(content=f"w{worker}:{number}:q"), AIMessage(content=f"w{worker}:{number}:a")]


def append_turns(
    spec: dict[str, Any], thread_id: str, worker: int, barrier: Barrier, acks: Connection
) -> None:
    """Append ``turn(worker, 0)``, ``(worker, 1)``, ... until killed, sending each number once appended."""
    store = open_store(spec)
    barrier.wait(timeout=60)
    number = 0
    while True:
        store.append(thread_id, turn(worker, number))
        acks.send(number)
        number += 1


def compact_until(
    spec: dict[str, Any], thread_id: str, barrier: Barrier, stop: Event, reports: Connection, lost_so_far: Any
) -> None:
    """Compact the thread again and again (forced, with a summarizer that takes a few milliseconds, so that
    compactors overlap), until ``stop``; then report ``(checkpoints written, compactions lost to another)``
    once (a report per compaction would fill the pipe, which the parent reads only at the end). The
    compactions lost so far are in ``lost_so_far`` (a shared ``c_int``) meanwhile."""
    import random

    from messages.compaction import Compactor
    from tests.stores._backends import is_async

    def summarizer(request: Any) -> str:
        time.sleep(random.uniform(0.02, 0.06))
        return f"S{request.start}-{request.upto}"

    compactor = Compactor(summarizer, limit=12, trigger=9, keep=3)
    store = open_store(spec)
    barrier.wait(timeout=60)
    written = lost = 0
    while not stop.is_set():
        if is_async(store):
            done = store._run(compactor.acompact(store.inner, thread_id, force=True))
        else:
            done = compactor.compact(store, thread_id, force=True)
        written, lost = written + len(done.written), lost + (done.conflict is not None)
        lost_so_far.value = lost
    reports.send((written, lost))
    store.close()


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> None:
    command, spec = argv[0], json.loads(argv[1])
    store = open_store(spec)
    thread_id = argv[2]
    if command == "continue-local":
        thread = store.load_thread(thread_id)
        assert isinstance(thread, LocalThread), type(thread)
        say(
            json.dumps(
                {"read": [m.model_dump() for m in thread.read(store)], "context": thread.context_state}
            )
        )
        thread.append(store, SECOND_PART)
        turns = len(thread.messages(store))
        store.save_thread(thread.with_context("memory", {**thread.context_state["memory"], "turns": turns}))
    elif command == "continue-remote":
        import os

        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import litellm

        thread = store.load_thread(thread_id)
        assert isinstance(thread, RemoteThread), type(thread)
        thread = thread.add(
            [ToolMessage(tool_call_id=call, content='{"sky": "rain"}') for call in thread.open_calls]
        )
        response = litellm.responses(
            model="openai/gpt-4o-mini",
            api_base=argv[3],
            api_key="test-key",
            num_retries=0,
            **thread.request(),
        )
        thread, reply = thread.receive(response)
        store.save_thread(thread.with_context("turns", 2))
        say(json.dumps({"reply": reply.model_dump()}))
    else:
        raise SystemExit(f"unknown command {command!r}")
    store.close()


if __name__ == "__main__":
    main(sys.argv[1:])
