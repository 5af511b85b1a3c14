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

import asyncio
import atexit
import functools
import gc
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

import messages
from benchmarks._conversation import append_exchanges, build_conversation
from benchmarks._timing import CPU, WALL, Figure, Table, best_of, fmt_time, judged, paired_collector_on
from messages import (
    AIMessage,
    AsyncInMemoryThreadStore,
    AsyncSQLiteThreadStore,
    InMemoryThreadStore,
    LocalThread,
    Message,
    PostgresThreadStore,
    SQLiteThreadStore,
    ThreadStore,
    UserMessage,
)
from messages.context import BufferedContext, HeadAndTailContext, TokenLimitedContext
from messages.stores import sqlite as sqlite_module
from messages.stores._codec import decode_joined, encode_rows, utc_now
from messages.stores._sql import LOCAL_LENGTH, READ_ROLES, SQLThreadStore
from messages.stores.base import OffloadedStore, _Release

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
            ("SQLite (synchronous=FULL)", lambda: sqlite_store(directory)),
        ]
        if dsn:
            backends.append(("PostgreSQL", lambda: postgres_store(dsn)))
        results: dict[str, tuple[float, tuple[float, float]]] = {}
        for name, make in backends:
            results[name] = (appends(name, make, to_append, repeat), load(name, make, to_load, repeat))
        # SQLite's NORMAL sync mode, for comparison: durable across a killed process, not a power cut.
        normal = "SQLite (synchronous=NORMAL, the default)"
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
    # The conversations above (100,000 messages) would stay alive through what follows, and every full
    # collection of the garbage collector would walk them: a pause of the loop that is the benchmark's.
    to_append = to_load = []
    gc.collect()
    return [*figures, *per_turn(quick), *loop_benchmark(quick), *call_overhead(quick)]


# -- per-turn reads through a window, by thread length (issue 23) -------------------------------------------

TURN_SIZES = (1_000, 10_000, 100_000, 1_000_000)
QUICK_TURN_SIZES = (1_000, 10_000)
TURN_TARGET = 2.0
"""Issue 23: a turn's ``read(store, window)`` at 1,000,000 messages within 2x of the same at 1,000."""
FULL_READ_LIMIT = 100_000
"""The longest thread whose full-read path is timed in every run; longer ones are timed once, in the first
run of the process (a full read of 1,000,000 messages takes tens of seconds and gigabytes)."""


def quarter_chars(message: Message) -> int:
    """A cheap token counter: a quarter of the dump's characters (litellm's counter would dominate the
    full-read path, which counts every message of the thread on every turn)."""
    return len(message.model_dump_json()) // 4


WINDOWS: dict[str, Callable[[], Any]] = {
    "buffered (50)": lambda: BufferedContext(buffer_size=50),
    "head-and-tail (10 + 40)": lambda: HeadAndTailContext(head_size=10, tail_size=40),
    "token-limited (4,000, chars/4)": lambda: TokenLimitedContext(4_000, message_token_counter=quarter_chars),
}

_BUILT: dict[int, tuple[Path, str]] = {}
"""Thread length -> (SQLite file, thread id): built once per process, reused by every run."""
_FULL_ONCE: dict[tuple[int, str], float] = {}
"""(length, window) -> the full-read path's one timing, for lengths above ``FULL_READ_LIMIT``."""


def built_thread(size: int) -> tuple[Path, str]:
    """A SQLite file holding one thread of ``size`` messages (the benchmark conversation's exchanges)."""
    if size in _BUILT:
        return _BUILT[size]
    directory = Path(tempfile.mkdtemp(prefix="bench-turns-"))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    path = directory / f"turns-{size}.db"
    started = time.perf_counter()
    with SQLiteThreadStore(path, synchronous="NORMAL") as store:
        thread_id = store.create_thread()
        append_exchanges(store, thread_id, size)
    print(f"  (built a {size:,}-message thread in {time.perf_counter() - started:.1f} s)", file=sys.stderr)
    _BUILT[size] = (path, thread_id)
    return path, thread_id


def timed(fn: Callable[[], object], repeat: int) -> float:
    """The best of ``repeat`` wall-clock runs, or one run when a run takes over a second."""
    first = time_once(fn)
    if first > 1.0:
        return first
    return min(first, best_of(fn, repeat=repeat, clock=WALL))


def full_read(store: ThreadStore, thread_id: str, window: Any) -> list[Message]:
    """The full-read path: every stored message given to the window, which then chooses (what
    ``LocalThread.read`` did before issue 23)."""
    window.clear()
    for message in store.messages(thread_id):
        window.add_message(message)
    return list(window.get_messages())


def per_turn(quick: bool) -> list[Figure]:
    sizes = QUICK_TURN_SIZES if quick else TURN_SIZES
    repeat = 3 if quick else 7
    times: dict[tuple[str, int], float] = {}
    print("\n== per-turn read(store, window) on SQLite, by thread length (wall clock, best of runs)")
    print(f"  {'window':<32} {'messages':>10}  {'read(store, window)':>20}  {'full-read path':>16}")
    for size in sizes:
        path, thread_id = built_thread(size)
        thread = LocalThread(id=thread_id)
        with SQLiteThreadStore(path) as store:
            for name, make in WINDOWS.items():
                window = make()
                windowed = thread.read(store, window)
                times[name, size] = timed(lambda: thread.read(store, window), repeat)  # noqa: B023
                key = (size, name)
                if size <= FULL_READ_LIMIT:
                    full = timed(lambda: full_read(store, thread_id, make()), repeat)  # noqa: B023
                    said = fmt_time(full)
                    assert full_read(store, thread_id, make()) == windowed, (name, size)
                elif key in _FULL_ONCE:
                    said = fmt_time(_FULL_ONCE[key]) + " (1st run)"
                else:
                    started = time.perf_counter()
                    reference = full_read(store, thread_id, make())
                    _FULL_ONCE[key] = time.perf_counter() - started
                    assert reference == windowed, (name, size)
                    del reference
                    said = fmt_time(_FULL_ONCE[key]) + " (1 run)"
                print(f"  {name:<32} {size:>10,}  {fmt_time(times[name, size]):>20}  {said:>16}")
    figures = []
    small, large = sizes[0], sizes[-1]
    for name in WINDOWS:
        figures.append(
            Figure(
                f"per-turn read {name}: {large:,} vs {small:,}",
                times[name, large] / times[name, small],
                TURN_TARGET,
            )
        )
    for figure in figures:
        print(f"  {judged(figure)}")
    return figures


# -- 100 conversations on one event loop (issue 23) ---------------------------------------------------------

LOOP_CONVERSATIONS, LOOP_LENGTH, LOOP_TURNS = 100, 1_000, 5
LOOP_TARGET_MS = 20.0
"""Issue 23: the worst delay of a 1 ms ticker on the loop, with the async stores, under 20 ms."""

_LOOP_FILE: list[Path] = []


def loop_file(conversations: int, length: int) -> Path:
    """A SQLite file with ``conversations`` threads of ``length`` messages, ids ``c0``, ``c1``, ..."""
    if _LOOP_FILE:
        return _LOOP_FILE[0]
    directory = Path(tempfile.mkdtemp(prefix="bench-loop-"))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    path = directory / "loop.db"
    conversation = build_conversation(length)
    with SQLiteThreadStore(path, synchronous="NORMAL") as store:
        for number in range(conversations):
            store.create_thread(f"c{number}")
            store.append(f"c{number}", conversation)
    _LOOP_FILE.append(path)
    return path


class Ops:
    """How one variant of the loop benchmark appends and reads: ``append(thread, messages)`` and
    ``read(thread, window)`` coroutines."""

    def __init__(self, name: str, opened: Any, append: Callable[..., Any], read: Callable[..., Any]):
        self.name, self.opened, self.append, self.read = name, opened, append, read

    async def setup(self) -> None:
        if hasattr(self.opened, "open"):
            await self.opened.open()

    async def close(self) -> None:
        if hasattr(self.opened, "aclose"):
            await self.opened.aclose()
        else:
            self.opened.close()


async def run_loop(ops: Ops, conversations: int, turns: int) -> tuple[float, float, int]:
    """(worst ticker delay in seconds, elapsed seconds, turns done) for ``conversations`` running ``turns``
    turns each on this loop, with a 1 ms ticker beside them."""
    loop = asyncio.get_running_loop()
    worst = 0.0
    running = True

    async def ticker() -> None:
        nonlocal worst
        while running:
            before = loop.time()
            await asyncio.sleep(0.001)
            worst = max(worst, loop.time() - before - 0.001)

    async def conversation(number: int) -> None:
        thread = LocalThread(id=f"c{number}")
        window = BufferedContext(buffer_size=50)
        for turn in range(turns):
            await ops.append(
                thread, [UserMessage(content=f"turn {turn}?"), AIMessage(content=f"answer {turn}")]
            )
            got = await ops.read(thread, window)
            assert got

    gc.collect()  # the garbage of what ran before (a full collection) must not land on this variant
    await ops.setup()
    try:
        # One read first, untimed: the store's first call opens its connection (and warms what it caches).
        await ops.read(LocalThread(id="c0"), BufferedContext(buffer_size=50))
        tick = asyncio.create_task(ticker())
        await asyncio.sleep(0.01)
        started = time.perf_counter()
        await asyncio.gather(*(conversation(n) for n in range(conversations)))
        elapsed = time.perf_counter() - started
        running = False
        await tick
    finally:
        await ops.close()
    return worst, elapsed, conversations * turns


class AioSQLiteStore:
    """What a window read and an append need of a store, on aiosqlite, with the SQLite store's own SQL and
    codec: the alternative to ``AsyncSQLiteThreadStore``'s worker thread, measured beside it (aiosqlite
    also runs its connection in a thread of its own, and hops to it once per statement). One connection,
    whose calls take turns (a lock), as the worker thread's do: a transaction must not interleave with
    another coroutine's statements."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn: Any = None
        self.lock = asyncio.Lock()

    async def open(self) -> AioSQLiteStore:
        import aiosqlite

        self.conn = await aiosqlite.connect(self.path, isolation_level=None)
        await self.conn.execute("PRAGMA journal_mode = WAL")
        await self.conn.execute("PRAGMA synchronous = FULL")
        return self

    async def aclose(self) -> None:
        await self.conn.close()

    async def append(self, thread_id: str, batch: list[Message]) -> range:
        rows = encode_rows(batch)
        async with self.lock:
            return await self._append(thread_id, rows)

    async def _append(self, thread_id: str, rows: list[Any]) -> range:
        now = utc_now().isoformat()
        await self.conn.execute("BEGIN IMMEDIATE")
        try:
            cursor = await self.conn.execute(sqlite_module._BUMP, (len(rows), now, thread_id))
            length, _ = await cursor.fetchone()
            first = length - len(rows)
            await self.conn.executemany(
                sqlite_module._INSERT_MESSAGE,
                [(thread_id, first + n, r.text, now, r.id, r.metadata, r.role) for n, r in enumerate(rows)],
            )
            await self.conn.execute("COMMIT")
        except BaseException:
            await self.conn.execute("ROLLBACK")
            raise
        return range(first, first + len(rows))

    async def thread_info(self, thread_id: str) -> Any:
        async with self.lock:
            cursor = await self.conn.execute(LOCAL_LENGTH, (thread_id,))
            length, kind = await cursor.fetchone()
        return SimpleNamespace(length=length, kind=kind)

    async def roles(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[str]:
        async with self.lock:
            cursor = await self.conn.execute(READ_ROLES.format(message="message"), (thread_id, start, stop))
            return [role for (role,) in await cursor.fetchall()]

    async def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        assert stop is not None  # a window read asks for ranges
        async with self.lock:
            cursor = await self.conn.execute(sqlite_module._READ_SPAN, (start, thread_id, start, stop))
            joined, _ = await cursor.fetchone()
        decoded = decode_joined(joined, stop - start) if joined is not None else []
        assert decoded is not None
        return decoded


def loop_variants(path: Path) -> list[tuple[str, Callable[[], Any]]]:
    """(name, make) for each variant: ``make`` opens a store on a copy of ``path`` and returns its Ops."""

    def copy() -> Path:
        target = path.with_name(f"copy-{uuid.uuid4().hex[:8]}.db")
        shutil.copyfile(path, target)
        return target

    def sync_direct() -> Ops:
        store = SQLiteThreadStore(copy())

        async def append(thread: LocalThread, batch: list[Message]) -> object:
            return thread.append(store, batch)

        async def read(thread: LocalThread, window: Any) -> object:
            return thread.read(store, window)

        return Ops("sync store called on the loop", store, append, read)

    def sync_threads() -> Ops:
        store = SQLiteThreadStore(copy())

        async def append(thread: LocalThread, batch: list[Message]) -> object:
            return await asyncio.to_thread(thread.append, store, batch)

        async def read(thread: LocalThread, window: Any) -> object:
            return await asyncio.to_thread(thread.read, store, window)

        return Ops("sync store in threads (asyncio.to_thread)", store, append, read)

    variants: list[tuple[str, Callable[[], Any]]] = [
        ("sync-direct", sync_direct),
        ("sync-threads", sync_threads),
    ]
    async_class = getattr(messages, "AsyncSQLiteThreadStore", None)
    if async_class is not None:

        def async_store() -> Ops:
            store = async_class(copy())

            async def append(thread: LocalThread, batch: list[Message]) -> object:
                return await thread.aappend(store, batch)

            async def read(thread: LocalThread, window: Any) -> object:
                return await thread.aread(store, window)

            return Ops("AsyncSQLiteThreadStore", store, append, read)

        def two_workers() -> Ops:
            store = async_class(copy(), workers=2)

            async def append(thread: LocalThread, batch: list[Message]) -> object:
                return await thread.aappend(store, batch)

            async def read(thread: LocalThread, window: Any) -> object:
                return await thread.aread(store, window)

            return Ops("AsyncSQLiteThreadStore(workers=2)", store, append, read)

        def aiosqlite_store() -> Ops:
            store = AioSQLiteStore(copy())  # opened on the benchmark's loop (Ops.setup)

            async def append(thread: LocalThread, batch: list[Message]) -> object:
                return await store.append(thread.id, batch)

            async def read(thread: LocalThread, window: Any) -> object:
                return await thread.aread(store, window)  # type: ignore[arg-type]

            return Ops("aiosqlite (one connection, same SQL and codec)", store, append, read)

        variants[:0] = [("async", async_store), ("async-2", two_workers), ("aiosqlite", aiosqlite_store)]
    return variants


def loop_benchmark(quick: bool) -> list[Figure]:
    conversations, length, turns = (20, 200, 2) if quick else (LOOP_CONVERSATIONS, LOOP_LENGTH, LOOP_TURNS)
    path = loop_file(conversations, length)
    print(
        f"\n== {conversations} conversations on one event loop, {length:,}-message threads on SQLite, "
        f"{turns} turns each (append 2 messages, read a BufferedContext(50)), a 1 ms ticker beside them"
    )
    results: dict[str, tuple[float, float, int]] = {}
    for key, make in loop_variants(path):
        ops = make()
        results[key] = asyncio.run(run_loop(ops, conversations, turns))
        worst, elapsed, done = results[key]
        print(f"  {ops.name:<44} worst ticker delay {worst * 1e3:8.2f} ms   {done / elapsed:8.0f} turns/s")
    figures = []
    if "async" in results:
        figures.append(
            Figure(
                "loop: worst ticker delay, async store", results["async"][0] * 1e3, LOOP_TARGET_MS, unit="ms"
            )
        )
    figures.append(
        Figure("loop: worst ticker delay, sync store on the loop", results["sync-direct"][0] * 1e3, unit="ms")
    )
    if "async" in results:
        rate = {key: done / elapsed for key, (_, elapsed, done) in results.items()}
        figures += [
            Figure(
                "loop: throughput, async vs sync in threads", rate["async"] / rate["sync-threads"], 1.0, False
            ),
            Figure("loop: worst ticker delay, aiosqlite", results["aiosqlite"][0] * 1e3, unit="ms"),
            Figure(
                "loop: throughput, aiosqlite vs AsyncSQLiteThreadStore", rate["aiosqlite"] / rate["async"]
            ),
        ]
    for figure in figures:
        print(f"  {judged(figure)}")
    return figures


# -- the per-call cost of the stores' edges (issue 29) -------------------------------------------------------

OVERHEAD_TARGET = 1.2
"""Issue 29: the bookkeeping of calls in flight (closing, cancellation) costs an in-memory append of one
message at most a fifth more, and a SQLite one less (it waits on the file)."""


def _unguarded(store: ThreadStore) -> ThreadStore:
    """``store`` with its calls run as before issue 29: the failure mapping alone, no count of the calls in
    flight (what lets ``close()`` wait for them)."""
    store._operation = functools.partial(_Release, store)  # type: ignore[method-assign]
    return store


def _old_call(store: OffloadedStore) -> OffloadedStore:
    """``store`` with its ``_call`` as before issue 29: inline for the in-memory store (never yielding to
    the loop), ``run_in_executor`` for a worker (a cancelled call ran on), and no count of calls in flight
    on either side."""
    _unguarded(store._sync)
    pool = store._pool

    async def call(method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if pool is None:
            return method(*args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(
            pool, functools.partial(method, *args, **kwargs)
        )

    store._call = call  # type: ignore[method-assign]
    return store


def call_overhead(quick: bool) -> list[Figure]:
    """One message appended at a time: each store now, beside the same store with its calls run as before
    (in the same process, in pairs)."""
    count, repeat = (300, 3) if quick else (3_000, 7)
    message = UserMessage(content="hello")
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="bench-edges-") as tmp:
        directory = Path(tmp)

        def sync_appends(store: ThreadStore) -> Callable[[], None]:
            thread_id = store.create_thread()

            def run() -> None:
                for _ in range(count):
                    store.append(thread_id, message)

            return run

        def async_appends(store: OffloadedStore) -> Callable[[], None]:
            thread_id = asyncio.run(store.create_thread())

            async def appends() -> None:
                for _ in range(count):
                    await store.append(thread_id, message)

            return lambda: asyncio.run(appends())

        cases: list[tuple[str, Callable[[], Any], Callable[[], Any], Any]] = [
            ("InMemoryThreadStore", InMemoryThreadStore, InMemoryThreadStore, CPU),
            (
                "SQLiteThreadStore (synchronous=NORMAL)",
                lambda: SQLiteThreadStore(directory / f"{uuid.uuid4().hex}.db", synchronous="NORMAL"),
                lambda: SQLiteThreadStore(directory / f"{uuid.uuid4().hex}.db", synchronous="NORMAL"),
                CPU,
            ),
            ("AsyncInMemoryThreadStore", AsyncInMemoryThreadStore, AsyncInMemoryThreadStore, CPU),
            (
                "AsyncSQLiteThreadStore (synchronous=NORMAL)",
                lambda: AsyncSQLiteThreadStore(directory / f"{uuid.uuid4().hex}.db", synchronous="NORMAL"),
                lambda: AsyncSQLiteThreadStore(directory / f"{uuid.uuid4().hex}.db", synchronous="NORMAL"),
                WALL,
            ),
        ]
        for name, make_now, make_before, clock in cases:
            now, before = make_now(), make_before()
            if isinstance(now, OffloadedStore):
                run_now, run_before = async_appends(now), async_appends(_old_call(before))
            else:
                run_now, run_before = sync_appends(now), sync_appends(_unguarded(before))
            table = Table(f"{name}: append one message, {count:,} times", clock=clock)
            ratios = table.measure_paired(
                "before issue 29", {"before issue 29": run_before, "now": run_now}, repeat=repeat
            )
            per_call = dict(table.rows)
            table.show(
                "before issue 29",
                notes=[
                    f"per append: {per_call['before issue 29'] / count * 1e6:.2f} us before, "
                    f"{per_call['now'] / count * 1e6:.2f} us now"
                ],
            )
            for store in (now, before):
                if isinstance(store, OffloadedStore):
                    asyncio.run(store.aclose())
                else:
                    store.close()
            sync_kind = not name.startswith("Async")
            figures.append(
                Figure(
                    f"edges: {name} append, now vs before",
                    ratios["now"],
                    OVERHEAD_TARGET if sync_kind else None,
                )
            )
    print("\n== the edges' bookkeeping: verdicts")
    for figure in figures:
        print(f"  {judged(figure)}")
    return figures
