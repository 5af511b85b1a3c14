"""A turn's read of an OpenAI Agents SDK session: ``ThreadStoreSession`` on this package's stores beside the
SDK's own ``SQLiteSession`` and ``SQLAlchemySession``, in the same run.

Each session holds the same chat, as the SDK's ``Runner`` stores it (a question, a function call, its
result, an answer with an annotated ``output_text``: four items a turn), of 1,000 and 100,000 items (200
and 2,000 with ``--quick``). A turn's read is what the ``Runner`` asks of the session before the model
call: ``get_items()`` (the SDK's default: every item) or ``get_items(limit=50)`` (with
``SessionSettings(limit=50)``). Timed on the wall clock, in interleaved rounds (every session once a
round), on one event loop (the stores work in worker threads, or on the server), the best of the rounds.

* ``SQLiteSession`` (SDK): one SQLite file; a read is one ``SELECT`` and a ``json.loads`` per item, in a
  worker thread.
* ``SQLAlchemySession`` (SDK) on ``sqlite+aiosqlite`` (and on ``postgresql+psycopg`` with a server).
* ``ThreadStoreSession`` on ``SQLiteThreadStore`` (called in a worker thread) and on
  ``AsyncSQLiteThreadStore``; on ``PostgresThreadStore`` and ``AsyncPostgresThreadStore`` with a server
  (``MESSAGES_TEST_POSTGRES_DSN``; ``scripts/postgres.sh run python3 -m benchmarks openai-agents`` starts
  one). A read takes the envelopes alone (``store.metadata``); a limited one the newest 50 and a page,
  more only to reach back to the start of an exchange.

Loop lag: the longest the event loop waited past a 1 ms tick while each session read, at the larger size,
its newest 50 items (a turn) and its whole history (the least over the rounds): what every other task of
the bot (other sessions, streams) waits meanwhile.

Each session's items are written once, by its own ``add_items`` (in batches of 1,000); the sync and async
stores of a backend share one database.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks._timing import WALL, Figure, Table, judged

DSN_VARIABLE = "MESSAGES_TEST_POSTGRES_DSN"
LIMIT = 50
BASELINE = "SQLiteSession (SDK)"


def chat(items: int) -> list[dict[str, Any]]:
    """``items`` items of a weather chat as the Runner stores it, four a turn."""
    out: list[dict[str, Any]] = []
    for n in range((items + 3) // 4):
        call = f"call_{n}"
        text = {"annotations": [], "text": f"It is sunny in city {n}.", "type": "output_text", "logprobs": []}
        out += [
            {"role": "user", "content": f"What is the weather in city {n}?"},
            {"arguments": f'{{"city":"city {n}"}}', "call_id": call, "name": "get_weather",
             "type": "function_call", "id": f"fc_{n}"},
            {"call_id": call, "output": f"Sunny, {20 + n % 10} degrees", "type": "function_call_output"},
            {"id": f"msg_{n}", "content": [text], "role": "assistant", "status": "completed",
             "type": "message"},
        ]  # fmt: skip
    return out[:items]


async def _seed(session: Any, items: list[dict[str, Any]]) -> None:
    for start in range(0, len(items), 1_000):
        await session.add_items(items[start : start + 1_000])


async def open_sessions(stack: AsyncExitStack, folder: Path, size: int, dsn: str | None) -> dict[str, Any]:
    """Every session of the run, each holding ``chat(size)``."""
    from agents import SQLiteSession
    from agents.extensions.memory import SQLAlchemySession

    from messages import AsyncSQLiteThreadStore, SQLiteThreadStore
    from messages.integrations.openai_agents import ThreadStoreSession

    items = chat(size)
    sdk = SQLiteSession("s", folder / f"sdk-{size}.db")
    stack.callback(sdk.close)
    alchemy = SQLAlchemySession.from_url(
        "s", url=f"sqlite+aiosqlite:///{folder}/alchemy-{size}.db", create_tables=True
    )
    stack.push_async_callback(alchemy.engine.dispose)
    store = SQLiteThreadStore(folder / f"ours-{size}.db")
    stack.callback(store.close)
    async_store = AsyncSQLiteThreadStore(store.path)
    stack.push_async_callback(async_store.aclose)
    sessions: dict[str, Any] = {
        BASELINE: sdk,
        "SQLAlchemySession, SQLite (SDK)": alchemy,
        "ours, SQLiteThreadStore": ThreadStoreSession("s", store),
        "ours, AsyncSQLiteThreadStore": ThreadStoreSession("s", async_store),
    }
    if dsn:
        sessions.update(await _postgres_sessions(stack, dsn, size))
    for name, session in sessions.items():
        if "Async" not in name:  # the async stores share the database of the sync ones
            await _seed(session, items)
    return sessions


async def _postgres_sessions(stack: AsyncExitStack, dsn: str, size: int) -> dict[str, Any]:
    import psycopg
    from agents.extensions.memory import SQLAlchemySession
    from psycopg.conninfo import conninfo_to_dict, make_conninfo
    from sqlalchemy.engine import URL

    from messages import AsyncPostgresThreadStore, PostgresThreadStore
    from messages.integrations.openai_agents import ThreadStoreSession

    schema = f"bench_agents_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')

    def drop() -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    stack.callback(drop)
    options = f"-c search_path={schema}"
    info = {key: str(value) for key, value in conninfo_to_dict(dsn).items()}
    url = URL.create(
        "postgresql+psycopg",
        username=info.get("user"),
        password=info.get("password"),
        host=info.get("host"),
        port=int(info["port"]) if "port" in info else None,
        database=info.get("dbname"),
    )
    alchemy = SQLAlchemySession.from_url(
        "s", url=url.render_as_string(hide_password=False), create_tables=True,
        engine_kwargs={"connect_args": {"options": options}},
    )  # fmt: skip
    stack.push_async_callback(alchemy.engine.dispose)
    store = PostgresThreadStore(make_conninfo(dsn, options=options))
    stack.callback(store.close)
    async_store = AsyncPostgresThreadStore(make_conninfo(dsn, options=options))
    stack.push_async_callback(async_store.aclose)
    return {
        "SQLAlchemySession, PostgreSQL (SDK)": alchemy,
        "ours, PostgresThreadStore": ThreadStoreSession("s", store),
        "ours, AsyncPostgresThreadStore": ThreadStoreSession("s", async_store),
    }


async def loop_lag(read: Callable[[], Awaitable[Any]]) -> float:
    """The longest the loop waited past a 1 ms tick while ``read()`` ran."""
    done = False
    worst = 0.0

    async def tick() -> None:
        nonlocal worst
        while not done:
            start = time.perf_counter()
            await asyncio.sleep(0.001)
            worst = max(worst, time.perf_counter() - start - 0.001)

    ticker = asyncio.get_running_loop().create_task(tick())
    await asyncio.sleep(0.01)
    try:
        await read()
    finally:
        done = True
        await ticker
    return worst


def measure(
    loop: asyncio.AbstractEventLoop, sessions: dict[str, Any], size: int, repeat: int
) -> tuple[Table, Table]:
    def reader(session: Any, limit: int | None) -> Callable[[], None]:
        return lambda: loop.run_until_complete(session.get_items(limit=limit))

    whole = Table(f"get_items() of a session of {size:,} items", clock=WALL)
    whole.measure({name: reader(s, None) for name, s in sessions.items()}, repeat=repeat)
    limited = Table(f"get_items(limit={LIMIT}) of a session of {size:,} items", clock=WALL)
    limited.measure({name: reader(s, LIMIT) for name, s in sessions.items()}, repeat=repeat * 5)
    return whole, limited


def main(quick: bool = False) -> list[Figure]:
    os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
    sizes = (200, 2_000) if quick else (1_000, 100_000)
    repeat = 2 if quick else 5
    dsn = os.environ.get(DSN_VARIABLE)
    per_read: dict[tuple[str, int], dict[str, float]] = {}
    lags: dict[tuple[str, str], float] = {}
    loop = asyncio.new_event_loop()
    try:
        with tempfile.TemporaryDirectory() as folder:
            for size in sizes:
                stack = AsyncExitStack()
                try:
                    sessions = loop.run_until_complete(open_sessions(stack, Path(folder), size, dsn))
                    whole, limited = measure(loop, sessions, size, repeat)
                    for table, kind in ((whole, "whole"), (limited, "limit")):
                        table.show(BASELINE)
                        per_read[(kind, size)] = dict(table.rows)
                    if size == sizes[-1]:
                        for name, session in sessions.items():
                            # The least of the rounds' longest waits: a wait the read causes comes back in
                            # every round, one this shared machine causes (a descheduled process) does not.
                            for read, limit in (("turn", LIMIT), ("whole", None)):
                                lags[(read, name)] = min(
                                    loop.run_until_complete(loop_lag(partial(session.get_items, limit)))
                                    for _ in range(repeat)
                                )
                finally:
                    loop.run_until_complete(stack.aclose())
    finally:
        loop.close()
    if not dsn:
        print(f"  (PostgreSQL skipped: set {DSN_VARIABLE}; `scripts/postgres.sh run CMD` starts a server)")
    small, large = sizes
    print(f"\n== loop lag while reading a session of {large:,} items: get_items(limit={LIMIT}), get_items()")
    for name in dict.fromkeys(name for _, name in lags):
        print(f"{name:40} {lags[('turn', name)] * 1e3:8.1f} ms {lags[('whole', name)] * 1e3:8.1f} ms")
    ours, base = "ours, SQLiteThreadStore", BASELINE
    figures = [
        Figure(
            f"openai-agents: get_items(), {large:,} items, ours (SQLite) vs SQLiteSession",
            per_read[("whole", large)][ours] / per_read[("whole", large)][base],
        ),
        Figure(
            f"openai-agents: get_items(limit={LIMIT}), {large:,} items, ours (SQLite) vs SQLiteSession",
            per_read[("limit", large)][ours] / per_read[("limit", large)][base],
        ),
        Figure(
            f"openai-agents: get_items(limit={LIMIT}), ours (SQLite), {large:,} vs {small:,} items",
            per_read[("limit", large)][ours] / per_read[("limit", small)][ours],
            target=1.5,
        ),
        Figure(
            f"openai-agents: get_items(limit={LIMIT}), SQLiteSession, {large:,} vs {small:,} items",
            per_read[("limit", large)][base] / per_read[("limit", small)][base],
        ),
        Figure(
            f"openai-agents: loop lag, limit={LIMIT} of {large:,} items, ours (AsyncSQLiteThreadStore)",
            lags[("turn", "ours, AsyncSQLiteThreadStore")] * 1e3,
            unit=" ms",
        ),
        Figure(
            f"openai-agents: loop lag, all {large:,} items, ours (AsyncSQLiteThreadStore)",
            lags[("whole", "ours, AsyncSQLiteThreadStore")] * 1e3,
            unit=" ms",
        ),
        Figure(
            f"openai-agents: loop lag, all {large:,} items, SQLiteSession",
            lags[("whole", base)] * 1e3,
            unit=" ms",
        ),
    ]
    print()
    for figure in figures:
        print(judged(figure))
    return figures
