"""Thread stores: appending 10,000 messages one at a time and in batches, and loading a 100,000-message
thread, on SQLite and PostgreSQL.

Baselines measured in the same run:

* for appends, encoding the same messages (``model_dump_json`` of each): what any store must pay before
  it writes a byte;
* for the load, the floor: ``json.loads`` of the same data, the thread's stored rows as one JSON array
  (parsing to plain dicts, without reading them from the database or building messages). ``json.loads``
  row by row is shown beside it, and so is building the messages from the same data with no database at
  all (``validate_json`` of the array in the spans the SQL stores read, what ``messages()`` does after
  reading the rows): the gap between that row and ``store.messages`` is what the store itself costs.

Every row is timed with the cyclic garbage collector off (as all the benchmarks do: its pauses land on
whichever run is unlucky). Users run with it on, and a load that builds 100,000 messages is where it
costs most: the last figure of the load pairs ``store.messages`` with the floor, both with the collector
on (``collector_paused`` keeps it from running during the store's own decode, not during ``json.loads``).

Targets: loading within 2x of the floor (issue 16); batched appends of at least 10,000 messages per second
on SQLite. One-at-a-time appends commit (and fsync) once per message: they are timed in a single run each,
as they take tens of seconds, and show the disk's sync rate more than this code.

PostgreSQL runs when MESSAGES_TEST_POSTGRES_DSN names a server (``scripts/postgres.sh run python3 -m
benchmarks stores`` starts one); otherwise it is skipped with a message.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Literal

from benchmarks._conversation import build_conversation
from benchmarks._timing import WALL, Figure, Table, fmt_time, judged, paired_collector_on
from messages import Message, PostgresThreadStore, SQLiteThreadStore, ThreadStore
from messages.stores.base import SQLThreadStore, decode_joined

DSN_VARIABLE = "MESSAGES_TEST_POSTGRES_DSN"


@contextmanager
def sqlite_store(directory: Path, synchronous: Literal["FULL", "NORMAL"] = "FULL") -> Iterator[ThreadStore]:
    store = SQLiteThreadStore(directory / f"bench-{uuid.uuid4().hex[:8]}.db", synchronous=synchronous)
    try:
        yield store
    finally:
        store.close()


@contextmanager
def postgres_store(dsn: str) -> Iterator[ThreadStore]:
    """A store in a schema of its own, dropped afterwards."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    schema = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    store = PostgresThreadStore(make_conninfo(dsn, options=f"-c search_path={schema}"))
    try:
        yield store
    finally:
        store.close()
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def time_once(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def appends(
    name: str,
    make: Callable[[], AbstractContextManager[ThreadStore]],
    conversation: list[Message],
    repeat: int,
) -> float:
    """Time the appends of ``conversation`` to fresh threads; returns the batched rate (messages/s)."""
    count = len(conversation)
    with make() as store:

        def one_at_a_time() -> None:
            thread_id = store.create_thread()
            for message in conversation:
                store.append(thread_id, message)

        def in_batches(size: int) -> Callable[[], None]:
            def run() -> None:
                thread_id = store.create_thread()
                for start in range(0, count, size):
                    store.append(thread_id, conversation[start : start + size])

            return run

        table = Table(f"{name}: append {count:,} messages", clock=WALL)
        table.measure(
            {
                "encode only (model_dump_json of each)": lambda: [m.model_dump_json() for m in conversation],
                "append in batches of 100": in_batches(100),
                "append in batches of 1,000": in_batches(1000),
                f"append all {count:,} at once": in_batches(count),
            },
            repeat=repeat,
        )
        single = table.add("append one at a time (one run)", time_once(one_at_a_time))
        rows = dict(table.rows)
        batched = count / rows["append in batches of 100"]
        table.show(
            "encode only (model_dump_json of each)",
            notes=[
                f"one at a time: {count / single:,.0f} messages/s; batches of 100: {batched:,.0f} "
                f"messages/s; batches of 1,000: {count / rows['append in batches of 1,000']:,.0f} messages/s",
            ],
        )
        return batched


def load(
    name: str,
    make: Callable[[], AbstractContextManager[ThreadStore]],
    conversation: list[Message],
    repeat: int,
) -> tuple[float, float]:
    """Time loading a thread of ``conversation``; returns the ratio to the json.loads floor, and the same
    ratio with the garbage collector on."""
    with make() as store:
        thread_id = store.create_thread()
        for start in range(0, len(conversation), 1000):
            store.append(thread_id, conversation[start : start + 1000])
        rows = [m.model_dump_json() for m in conversation]  # the stored rows, byte for byte
        joined = "[" + ",".join(rows) + "]"
        span = SQLThreadStore._span
        spans = [rows[n : n + span] for n in range(0, len(rows), span)]
        joined_spans = [("[" + ",".join(part) + "]", len(part)) for part in spans]

        def decode_spans() -> list[Message]:
            decoded: list[Message] = []
            for text, count in joined_spans:
                part = decode_joined(text, count)
                assert part is not None
                decoded += part
            return decoded

        assert store.messages(thread_id) == conversation
        table = Table(
            f"{name}: load a {len(conversation):,}-message thread ({len(joined) / 1e6:.1f} MB of JSON)",
            clock=WALL,  # the database may be another process: its time counts
        )
        floor, decode, whole = (
            "floor: json.loads of the same data (one array)",
            "decode only: the messages built from the same data, span by span",
            "store.messages(thread_id)",
        )
        # Each row is timed beside the floor and the median of the ratios is kept (see measure_paired).
        ratios = table.measure_paired(
            floor,
            {
                floor: lambda: json.loads(joined),
                "json.loads row by row": lambda: [json.loads(row) for row in rows],
                decode: decode_spans,
                whole: lambda: store.messages(thread_id),
                "store.messages(thread_id, -100): the last 100": lambda: store.messages(thread_id, -100),
            },
            repeat=repeat,
        )
        ratio = ratios[whole]
        with_collector = paired_collector_on(
            lambda: json.loads(joined), lambda: store.messages(thread_id), repeat=repeat, clock=WALL
        )
        table.show(
            floor,
            notes=[
                judged(Figure("load vs json.loads floor", ratio, LOAD_TARGET)),
                f"of which building the messages (pydantic validation, no I/O): {ratios[decode]:.2f}x; "
                f"the store's own share (reading, joining rows): {ratio - ratios[decode]:.2f}x",
                f"with the garbage collector on, as users run (median of {repeat} pairs): "
                f"{with_collector:.2f}x",
            ],
        )
        return ratio, with_collector


LOAD_TARGET = 2.0
"""Issue 16: ``messages()`` on 100,000 rows within 2x of ``json.loads`` of the same data."""


def main(quick: bool = False) -> list[Figure]:
    n_append, n_load, repeat = (1_000, 10_000, 3) if quick else (10_000, 100_000, 5)
    to_append = build_conversation(n_append)
    to_load = build_conversation(n_load)
    dsn = os.environ.get(DSN_VARIABLE)
    with tempfile.TemporaryDirectory(prefix="bench-stores-") as tmp:
        directory = Path(tmp)
        backends: list[tuple[str, Callable[[], AbstractContextManager[ThreadStore]]]] = [
            ("SQLite (synchronous=FULL, the default)", lambda: sqlite_store(directory)),
        ]
        if dsn:
            backends.append(("PostgreSQL", lambda: postgres_store(dsn)))
        results: dict[str, tuple[float, tuple[float, float]]] = {}
        for name, make in backends:
            results[name] = (appends(name, make, to_append, repeat), load(name, make, to_load, repeat))
        # SQLite's NORMAL sync mode, for comparison: durable across a killed process, not a power cut.
        normal = "SQLite (synchronous=NORMAL)"
        single = Table(f"{normal}: append {n_append:,} messages one at a time (one run)")
        with sqlite_store(directory, "NORMAL") as store:
            thread_id = store.create_thread()
            seconds = time_once(lambda: [store.append(thread_id, m) for m in to_append])
        print(f"\n== {single.title}\n  {fmt_time(seconds)}  {n_append / seconds:,.0f} messages/s")
    if not dsn:
        print(f"\n(PostgreSQL skipped: set {DSN_VARIABLE}; `scripts/postgres.sh run CMD` starts a server)")
    print("\n== stores: verdicts")
    figures: list[Figure] = []
    for name, (batched, (ratio, with_collector)) in results.items():
        short = name.split(" (")[0]
        if name.startswith("SQLite"):
            figures.append(Figure(f"{short}: batched appends", batched / 1e3, 10, below=False, unit="k/s"))
        figures.append(Figure(f"{short}: messages() vs json.loads", ratio, LOAD_TARGET))
        figures.append(Figure(f"{short}: messages() vs json.loads, collector on", with_collector))
    for figure in figures:
        print(f"  {judged(figure)}")
    return figures
