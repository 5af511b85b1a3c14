"""Compaction (issue 31): what a turn costs after a checkpoint as the thread grows, what one compaction
costs, and how much of the prompt a provider would serve from its cache over a long conversation.

1. **Per-turn read after a checkpoint**, at 1,000, 10,000 and 100,000 messages, on SQLite and PostgreSQL
   (when ``MESSAGES_TEST_POSTGRES_DSN`` names a server): ``thread.read(store, compactor.window())`` on a
   thread whose newest checkpoint stands 120 messages before its end, with the messages the store is asked
   for. Target: 100,000 within 2x of 1,000.
2. **One compaction** on the same threads: a forced ``compact`` with a scripted summarizer (the LLM call is
   not the package's cost), undone after each run (``delete_checkpoint``).
3. **The prompt cache over a scripted 200-turn conversation** (in memory, no timing). A provider caches a
   request's prefix and serves the next request's matching prefix from its cache; modelled here by message
   (the longest run of whole messages the request shares with the one before it), in tokens (a quarter of
   the characters). Side by side, with the same token budget: this package's compaction (a checkpoint
   when the window passes its trigger, the window stable in between), ``TokenLimitedContext`` (slides every
   turn once the history is over its limit), LangChain's ``SummarizationMiddleware`` (langchain 1.4, run
   here as an agent runs it: ``before_model`` on the state before each model call, the state replaced when
   it summarizes; its ``summarizer=`` hook stands in for the model, so it runs offline), and the whole
   history unwindowed (for reference: every prefix cached, every token sent).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from benchmarks._conversation import append_exchanges
from benchmarks._timing import WALL, Figure, best_of, fmt_time, judged
from benchmarks.bench_stores import DSN_VARIABLE, postgres_store, sqlite_store
from messages import (
    AIMessage,
    InMemoryThreadStore,
    LocalThread,
    Message,
    SystemMessage,
    ThreadStore,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
)
from messages.compaction import Compactor, SummaryRequest, summary_message
from messages.context import TokenLimitedContext

SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 10_000)
READ_TARGET = 2.0
"""Issue 31: a turn's read after a checkpoint at 100,000 messages within 2x of the same at 1,000."""
TAIL = 120
"""Messages after the newest checkpoint in the timed threads."""


def quarter_chars(message: Message) -> int:
    """A cheap token counter: a quarter of the dump's characters."""
    return max(1, len(message.model_dump_json()) // 4)


def scripted(request: SummaryRequest) -> str:
    return f"Positions {request.start} to {request.upto}: weather questions about many cities, answered."


def compactor() -> Compactor:
    return Compactor(scripted, limit=8_000, message_token_counter=quarter_chars, counter_name="chars/4")


class Counting:
    """A store that counts the messages and roles each read asks for."""

    def __init__(self, store: ThreadStore) -> None:
        self.store = store
        self.messages_read = 0
        self.roles_read = 0

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # the store's own read (one statement) would bypass the counting
            raise AttributeError(name)
        return getattr(self.store, name)

    def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        got = self.store.messages(thread_id, start, stop)
        self.messages_read += len(got)
        return got

    def roles(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[str]:
        got = self.store.roles(thread_id, start, stop)
        self.roles_read += len(got)
        return got


def build(store: ThreadStore, size: int) -> str:
    """A thread of ``size`` messages (the benchmark's exchanges) with a checkpoint ``TAIL`` messages
    before its end (at the start of an exchange)."""
    thread_id = store.create_thread()
    length = append_exchanges(store, thread_id, size, whole=True)
    upto = 1 + 6 * ((length - 1 - TAIL) // 6)
    store.add_checkpoint(
        thread_id, summary_message("The conversation so far, summarized."), upto=upto, base=None
    )
    return thread_id


def per_turn(
    name: str, make: Callable[[], AbstractContextManager[ThreadStore]], sizes: tuple[int, ...], repeat: int
) -> tuple[dict[int, float], dict[int, float]]:
    """Per size: the best time of a turn's read, and of one forced compaction."""
    reads: dict[int, float] = {}
    compactions: dict[int, float] = {}
    with make() as store:
        for size in sizes:
            started = time.perf_counter()
            thread_id = build(store, size)
            built = time.perf_counter() - started
            thread = LocalThread(id=thread_id)
            turns = compactor()
            counting = Counting(store)
            thread.read(counting, turns.window())  # counts the tail once; saved for later turns
            counting.messages_read = counting.roles_read = 0
            got = thread.read(counting, turns.window())

            def turn(thread: LocalThread = thread, turns: Compactor = turns) -> None:
                thread.read(store, turns.window())

            reads[size] = best_of(turn, repeat=repeat, clock=WALL)
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                done = turns.compact(store, thread, force=True)
                times.append(time.perf_counter() - start)
                store.delete_checkpoint(thread_id, done.written[0].id)
            compactions[size] = min(times)
            print(
                f"  {name:<10} {size:>9,}  read {fmt_time(reads[size])}  "
                f"compaction {fmt_time(compactions[size])}  window {len(got):3} messages, asked for "
                f"{counting.messages_read} messages and {counting.roles_read} roles  (built in {built:.1f} s)"
            )
    return reads, compactions


# -- the prompt cache over a scripted conversation -------------------------------------------------------

TURNS = 200
Requests = list[list[dict[str, Any]]]
"""Each request of a conversation, as the wire dicts sent."""
BUDGET = 6_000
"""The token budget of every approach: the window's limit, LangChain's trigger."""


def scripted_turn(turn: int) -> list[Message]:
    """Turn ``turn``: a question and its answer; every third turn through a tool call with a long result."""
    question = UserMessage(content=f"(turn {turn}) " + "Tell me more about the trip plans. " * (3 + turn % 5))
    if turn % 3:
        return [question, AIMessage(content=f"Answer {turn}: " + "Here is what I found. " * (8 + turn % 7))]
    call = ToolCall(id=f"call_{turn:05d}", name="search", arguments=f'{{"query": "turn {turn}"}}')
    return [
        question,
        AIMessage(content=None, tool_calls=[call]),
        ToolMessage.for_call(call, "Result: " + "a long search result line. " * 60),
        AIMessage(content=f"Answer {turn}: " + "From the search, this. " * 10),
    ]


def prefix_share(requests: list[list[dict[str, Any]]]) -> tuple[float, int]:
    """The share of prompt tokens a provider would serve from its cache (each request's longest run of
    whole messages shared with the request before it), and the prompt tokens sent in all."""
    total = cached = 0
    previous: list[str] = []
    for request in requests:
        texts = [repr(m) for m in request]
        sizes = [max(1, len(t) // 4) for t in texts]
        total += sum(sizes)
        same = 0
        while same < min(len(texts), len(previous)) and texts[same] == previous[same]:
            same += 1
        cached += sum(sizes[:same])
        previous = texts
    return cached / total, total


def conversation_requests(
    send: Callable[[list[Message]], list[dict[str, Any]]], after_turn: Callable[[], None]
) -> Requests:
    """Drive the scripted conversation: ``send(new messages)`` appends them and returns the request (wire
    dicts) before each assistant message; ``after_turn()`` after each turn."""
    requests: Requests = []
    for turn in range(TURNS):
        messages = scripted_turn(turn)
        pending: list[Message] = []
        for message in messages:
            if isinstance(message, AIMessage):
                requests.append(send(pending))
                pending = []
            pending.append(message)
        send(pending)
        after_turn()
    return requests


def ours() -> tuple[Requests, int]:
    store = InMemoryThreadStore()
    thread = LocalThread()
    store.save_thread(thread)
    store.append(thread.id, SystemMessage(content="You are a travel assistant."))
    compacting = Compactor(
        lambda request: "Summary: " + "the trip so far, its plans and findings. " * 25,
        limit=BUDGET,
        message_token_counter=quarter_chars,
        counter_name="chars/4",
    )
    made = [0]

    def send(new: list[Message]) -> list[dict[str, Any]]:
        if new:
            store.append(thread.id, new)
        return dump_messages(thread.read(store, compacting.window()), validate=False)

    def after() -> None:
        made[0] += len(compacting.compact(store, thread).written)

    return conversation_requests(send, after), made[0]


def token_limited() -> Requests:
    context = TokenLimitedContext(
        BUDGET, [SystemMessage(content="You are a travel assistant.")], message_token_counter=quarter_chars
    )

    def send(new: list[Message]) -> list[dict[str, Any]]:
        for message in new:
            context.add_message(message)
        return dump_messages(context.get_messages(), validate=False)

    return conversation_requests(send, lambda: None)


def unbounded() -> Requests:
    history: list[Message] = [SystemMessage(content="You are a travel assistant.")]

    def send(new: list[Message]) -> list[dict[str, Any]]:
        history.extend(new)
        return dump_messages(history, validate=False)

    return conversation_requests(send, lambda: None)


def langchain_middleware() -> tuple[Requests, int] | str:
    """LangChain's ``SummarizationMiddleware`` as an agent runs it, or why it cannot run here."""
    try:
        from langchain.agents.middleware.summarization import SummarizationMiddleware
        from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
        from langchain_core.messages import RemoveMessage, convert_to_openai_messages
        from langgraph.graph.message import REMOVE_ALL_MESSAGES
    except ImportError as exc:
        return f"langchain v1 is not installed ({exc}); pip install 'langchain>=1.4'"
    from messages.convert.langchain import to_langchain

    def counter(messages: Any) -> int:  # chars/4 of the wire form, as the other approaches count
        return sum(max(1, len(repr(m)) // 4) for m in convert_to_openai_messages(list(messages)))

    summaries = [0]

    def summarizer(messages: Any) -> str:
        summaries[0] += 1
        return "Summary: " + "the trip so far, its plans and findings. " * 25

    middleware = SummarizationMiddleware(
        GenericFakeChatModel(messages=iter([])),
        trigger=("tokens", int(BUDGET * 0.8)),
        keep=("tokens", BUDGET // 4),
        token_counter=counter,
        summarizer=summarizer,
    )
    system = {"role": "system", "content": "You are a travel assistant."}
    state: list[Any] = []

    def send(new: list[Message]) -> list[dict[str, Any]]:
        state.extend(to_langchain(new))
        if not new or not isinstance(new[-1], UserMessage | ToolMessage):
            return []
        update = middleware.before_model({"messages": state}, None)  # type: ignore[arg-type]
        if update is not None:  # the agent's reducer: RemoveMessage(REMOVE_ALL_MESSAGES) empties the state
            replaced = update["messages"]
            assert isinstance(replaced[0], RemoveMessage)
            assert replaced[0].id == REMOVE_ALL_MESSAGES
            state[:] = replaced[1:]
        return [system, *convert_to_openai_messages(state)]

    return conversation_requests(send, lambda: None), summaries[0]


def main(quick: bool = False) -> list[Figure]:
    sizes = QUICK_SIZES if quick else SIZES
    repeat = 3 if quick else 7
    dsn = os.environ.get(DSN_VARIABLE)
    figures: list[Figure] = []
    print(f"\n== per-turn read after a checkpoint ({TAIL} messages before the end), and one compaction")
    with tempfile.TemporaryDirectory(prefix="bench-compaction-") as tmp:
        directory = Path(tmp)
        backends: list[tuple[str, Callable[[], AbstractContextManager[ThreadStore]]]] = [
            ("SQLite", lambda: sqlite_store(directory, "NORMAL"))
        ]
        if dsn:
            backends.append(("PostgreSQL", lambda: postgres_store(dsn)))
        for name, make in backends:
            reads, compactions = per_turn(name, make, sizes, repeat)
            growth = reads[sizes[-1]] / reads[sizes[0]]
            figures.append(
                Figure(f"{name}: read after a checkpoint, {sizes[-1]:,} vs {sizes[0]:,}", growth, READ_TARGET)
            )
            figures.append(
                Figure(
                    f"{name}: one compaction vs one read, {sizes[-1]:,}",
                    compactions[sizes[-1]] / reads[sizes[-1]],
                )
            )
    if not dsn:
        print(f"  (PostgreSQL skipped: set {DSN_VARIABLE}; `scripts/postgres.sh run CMD` starts a server)")

    print(
        f"\n== the prompt cache over a scripted {TURNS}-turn conversation (budget {BUDGET:,} tokens, chars/4)"
    )
    print(f"  {'approach':<52} {'cached share':>12} {'prompt tokens':>14} {'summaries':>10}")
    compacted, made = ours()
    rows: list[tuple[str, Requests, int | None]] = [
        ("messages.compaction (checkpoints, stable window)", compacted, made),
        ("TokenLimitedContext (slides every turn)", token_limited(), None),
    ]
    lc = langchain_middleware()
    if isinstance(lc, str):
        print(f"  LangChain SummarizationMiddleware: not run ({lc})")
    else:
        rows.append(("LangChain SummarizationMiddleware (langchain 1.4)", lc[0], lc[1]))
    rows.append(("whole history, unwindowed (reference)", unbounded(), None))
    shares: dict[str, float] = {}
    for label, requests, summaries in rows:
        share, total = prefix_share(requests)
        shares[label] = share
        print(f"  {label:<52} {share:>11.1%} {total:>14,} {summaries if summaries is not None else '-':>10}")
    ours_share = shares["messages.compaction (checkpoints, stable window)"]
    figures.append(Figure("cache share: messages.compaction", ours_share * 100, unit="%"))
    figures.append(
        Figure(
            "cache share: TokenLimitedContext",
            shares["TokenLimitedContext (slides every turn)"] * 100,
            unit="%",
        )
    )
    if not isinstance(lc, str):
        figures.append(
            Figure(
                "cache share: LangChain SummarizationMiddleware",
                shares["LangChain SummarizationMiddleware (langchain 1.4)"] * 100,
                unit="%",
            )
        )
    print("\n== compaction: verdicts")
    for figure in figures:
        print(f"  {judged(figure)}")
    return figures
