"""An Agent Framework agent's history, per turn: this package's provider on SQLite beside Agent Framework's
own ``InMemoryHistoryProvider`` and ``FileHistoryProvider``, in the same run.

A turn of history is what an agent does around its model call: the provider's ``before_run`` (load the
session's history into the context) and ``after_run`` (store the turn: a question, a tool call, its result
and the answer, as Agent Framework's OpenAI client records them, with the agent's name on them). The model
call itself is left out: it is not the history's. Each provider starts from a session that already holds
1,000 or 10,000 messages (200 and 1,000 with ``--quick``) of the same chat, and runs turns on it, one
after another, on one event loop, timed on the wall clock (the SQLite store and the file provider work in
worker threads).

* ``InMemoryHistoryProvider``: the history is a list in the session's state; it hands the agent the whole
  list and, to store a turn, hashes every stored message to find the turn's overlap with them;
* ``FileHistoryProvider``: a JSON Lines file per session, read and parsed whole to load, and again to
  store a turn;
* ``ThreadStoreHistoryProvider`` on ``SQLiteThreadStore``, the whole history: every message read and
  converted to Agent Framework's; to store, the thread's newest messages (as many as the turn) are read and
  compared, and the new ones appended;
* the same with ``window=lambda: BufferedContext(buffer_size=50)``: the store reads the window's roles,
  then its messages, whatever the thread holds.

The providers run in interleaved rounds, each once a round, so that every session grows by the same
turns; the figures are each provider's best time per turn over ``InMemoryHistoryProvider``'s at the same
size, and each one's time at the larger size over its time at the smaller.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks._timing import WALL, Figure, Table, judged


def chat(turns: int, start: int = 0) -> list[Any]:
    """``turns`` rounds of a weather chat as an agent records them: 4 Agent Framework messages each."""
    from agent_framework import Content, Message

    out: list[Any] = []
    for n in range(start, start + turns):
        call = f"call_{n}"
        occurrence = f"af-call-{n:032x}"
        out += [
            Message("user", [f"What is the weather in city {n}?"]),
            Message(
                "assistant",
                [
                    Content.from_function_call(
                        call, "get_weather", arguments=json.dumps({"city": f"city {n}"}), id=occurrence
                    )
                ],
                author_name="weatherbot",
            ),
            Message(
                "tool",
                [Content.from_function_result(call, result=f"Sunny, {20 + n % 10} degrees", id=occurrence)],
                author_name="weatherbot",
            ),
            Message("assistant", [f"It is sunny in city {n}."], author_name="weatherbot"),
        ]
    return out


class Turns:
    """Runs turns of one provider on one session, on an event loop of its own."""

    def __init__(self, provider: Any, session_id: str, first: int) -> None:
        from agent_framework import AgentSession

        self.provider = provider
        self.session = AgentSession(session_id=session_id)
        self.loop = asyncio.new_event_loop()
        self.next = first
        self.loaded = 0

    def seed(self, messages: list[Any]) -> None:
        state = self.session.state.setdefault(self.provider.source_id, {})
        self.loop.run_until_complete(
            self.provider.save_messages(self.session.session_id, messages, state=state)
        )

    def turn(self) -> None:
        from agent_framework import AgentResponse, SessionContext

        question, *reply = chat(1, self.next)
        self.next += 1
        context = SessionContext(session_id=self.session.session_id, input_messages=[question])
        state = self.session.state.setdefault(self.provider.source_id, {})

        async def run() -> None:
            await self.provider.before_run(agent=None, session=self.session, context=context, state=state)
            context._response = AgentResponse(messages=reply)
            await self.provider.after_run(agent=None, session=self.session, context=context, state=state)

        self.loop.run_until_complete(run())
        self.loaded = len(context.context_messages.get(self.provider.source_id, []))

    def close(self) -> None:
        self.loop.close()


def measure(
    size: int, directory: Path, repeat: int, turns: int
) -> tuple[Table, dict[str, float], dict[str, int]]:
    import warnings

    from agent_framework import FileHistoryProvider, InMemoryHistoryProvider

    from messages import SQLiteThreadStore
    from messages.context import BufferedContext
    from messages.integrations.agent_framework import ThreadStoreHistoryProvider

    history = chat(size // 4)
    first = size // 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FileHistoryProvider is marked experimental
        file_provider = FileHistoryProvider(directory / f"files-{size}")
    runners = {
        "InMemoryHistoryProvider (Agent Framework)": Turns(InMemoryHistoryProvider(), "s", first),
        "FileHistoryProvider (Agent Framework)": Turns(file_provider, "s", first),
        "ours, SQLite, the whole history": Turns(
            ThreadStoreHistoryProvider(SQLiteThreadStore(directory / f"whole-{size}.db")), "s", first
        ),
        "ours, SQLite, window of 50": Turns(
            ThreadStoreHistoryProvider(
                SQLiteThreadStore(directory / f"window-{size}.db"),
                window=lambda: BufferedContext(buffer_size=50),
            ),
            "s",
            first,
        ),
    }
    for runner in runners.values():
        runner.seed(history)

    def turns_of(runner: Turns) -> Callable[[], None]:
        def run() -> None:
            for _ in range(turns):
                runner.turn()

        return run

    baseline = "InMemoryHistoryProvider (Agent Framework)"
    table = Table(f"a turn of history over {size:,} messages ({turns} turns a run)", clock=WALL)
    # Interleaved rounds, each provider once a round: every session grows by the same turns.
    times = table.measure({name: turns_of(r) for name, r in runners.items()}, repeat=repeat)
    ratios = {name: seconds / times[baseline] for name, seconds in times.items()}
    loaded = {name: r.loaded for name, r in runners.items()}
    for runner in runners.values():
        runner.close()
    return table, ratios, loaded


def main(quick: bool = False) -> list[Figure]:
    sizes = (200, 1_000) if quick else (1_000, 10_000)
    repeat = 3 if quick else 7
    turns = 3 if quick else 5
    per_turn: dict[int, dict[str, float]] = {}
    ratios: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            table, ratios[size], loaded = measure(size, Path(folder), repeat, turns)
            per_turn[size] = {name: seconds / turns for name, seconds in table.rows}
            table.show(
                "InMemoryHistoryProvider (Agent Framework)",
                notes=[f"messages loaded by the last turn: {loaded}"],
            )
    small, large = sizes
    print(f"\n== per turn, {large:,} messages against {small:,}")
    for name in per_turn[small]:
        print(f"{name:45} {per_turn[large][name] / per_turn[small][name]:6.2f}x")
    whole, window = "ours, SQLite, the whole history", "ours, SQLite, window of 50"
    memory, files = "InMemoryHistoryProvider (Agent Framework)", "FileHistoryProvider (Agent Framework)"
    figures = [
        Figure(
            f"agent-framework: {large:,} msgs, ours (window 50) vs InMemoryHistoryProvider",
            ratios[large][window],
        ),
        Figure(
            f"agent-framework: {large:,} msgs, ours (whole) vs InMemoryHistoryProvider", ratios[large][whole]
        ),
        Figure(
            f"agent-framework: {large:,} msgs, FileHistoryProvider vs InMemoryHistoryProvider",
            ratios[large][files],
        ),
        Figure(
            f"agent-framework: ours (window 50), {large:,} vs {small:,} msgs",
            per_turn[large][window] / per_turn[small][window],
            target=1.5,
        ),
        Figure(
            f"agent-framework: InMemoryHistoryProvider, {large:,} vs {small:,} msgs",
            per_turn[large][memory] / per_turn[small][memory],
        ),
    ]
    print()
    for figure in figures:
        print(judged(figure))
    return figures
