"""A bot's whole turn (issue 38), beside the same turn written by hand and beside litellm's own call.

The turn as a bot writes it (the README's bot with a store and a window, ``examples/persist_thread.py``)::

    thread.append(store, UserMessage(content=question))
    request = thread.read(store, window)                 # a fresh window each turn
    payload = dump_messages(request, model=MODEL)
    response = litellm.completion(model=MODEL, messages=payload, ...)   # litellm's: measured apart
    reply = AIMessage.from_litellm(response)
    thread.append(store, reply)
    compactor.compact(store, thread)                     # with the compacting window

Everything but the ``litellm.completion`` call is the package's turn. The response it parses is a real
``ModelResponse``, from one call to the stand-in made before timing.

**The floor** is the same turn written by hand, as a careful developer would write it without the package:
dicts and ``json``, ``sqlite3`` (WAL, the same ``synchronous`` setting) or psycopg, a schema of its own
(a thread's length, and per message its position, JSON, role and, for the token windows, its token count
made with tiktoken when it is appended), each read one statement. It keeps no message ids, metadata or
timestamps and cuts wherever its bound falls (it may split a call from its results): a floor.

**litellm's call** is ``litellm.completion`` of the turn's own request (the list its window gave, dumped
for the model: 41 messages for the buffered window, about 200 for the token-limited one, whose call costs
litellm about 1.3 times as much) to a ``messages.testing.StandInServer`` on the loopback, measured in the
same rounds, on the wall clock: the target is that the package's turn is a small fraction of it.

The configurations: every window kind (``BufferedContext(40)``, ``HeadAndTailContext(8, 32)``,
``TokenLimitedContext(4000, model=...)``, the compacting window of ``Compactor(limit=8000, model=...)``
with a checkpoint 60 messages before the end, nothing due), a chat and a tool-heavy conversation
(``benchmarks._conversation``), threads of 100, 10,000 and 100,000 messages, on SQLite (``synchronous``
NORMAL and FULL) and PostgreSQL (when ``MESSAGES_TEST_POSTGRES_DSN`` names a server:
``scripts/postgres.sh run python3 scripts/dev.py bench turn``). Every configuration has a thread of its own,
set back to its length after each round (the rows a round appended removed, outside the timing: the package's
with the store's own ``pop``, the floor's on its own connection, so that neither finds its page cache dropped
by another connection's write), so a thread of 100 stays 100. All of them run in one process, interleaved:
each round times every configuration's turn once, beside its floor (in alternating order), and litellm's call;
the figures are medians over the rounds (wall clock, the garbage collector off while timing, collected between
rounds), the ratio to the floor the median of the per-round ratios.

Targets: the package's turn within 2x of the floor at the same durability setting, everywhere; at most 10%
of litellm's call on SQLite at the default setting.
"""

from __future__ import annotations

import gc
import inspect
import json
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks._conversation import exchange
from benchmarks._timing import Figure, fmt_time, judged
from benchmarks.bench_stores import DSN_VARIABLE
from messages import (
    AIMessage,
    LocalThread,
    Message,
    PostgresThreadStore,
    SQLiteThreadStore,
    SystemMessage,
    ThreadStore,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
)
from messages.compaction import Compactor, SummaryRequest, summary_message
from messages.context import BufferedContext, HeadAndTailContext, TokenLimitedContext

MODEL = "openai/gpt-4o-mini"
SIZES = (100, 10_000, 100_000)
QUICK_SIZES = (100,)
ONE_WRITE = "buffered, 1 write"
WINDOWS = ("buffered", "head-and-tail", "token-limited", "compacting", ONE_WRITE)
"""The window kinds; the last is the buffered turn that writes once (the user's message with the reply)."""
CONVERSATIONS = ("chat", "tool-heavy")
ROUNDS = 40
QUICK_ROUNDS = 4
SETTINGS = ("NORMAL", "FULL")
"""SQLite's ``synchronous`` settings measured (each with its own floor)."""
QUICK_SETTINGS = ("NORMAL",)
QUESTION = "And what about the weather in the next town over, should I take an umbrella there too?"
REPLY = "Light rain there this afternoon, 14 degrees: yes, take the umbrella."
BUFFER, HEAD, TAIL, TOKENS, COMPACT_LIMIT = 40, 8, 32, 4_000, 8_000
CHECKPOINT_TAIL = 60
"""Messages after the compacting threads' checkpoint (whole exchanges): well under the trigger."""
FLOOR_TARGET = 2.0
LITELLM_TARGET = 10.0
"""Percent of litellm's call, on SQLite at the store's default setting."""


# -- the conversations --------------------------------------------------------------------------------


def tool_heavy_exchange(n: int) -> list[Message]:
    """The ``n``-th exchange of a tool-heavy conversation (``_conversation.build_tool_heavy``'s shape)."""
    calls = [
        ToolCall(id=f"call_{n:08d}a", name="get_weather", arguments=f'{{"city": "City {n}"}}'),
        ToolCall(id=f"call_{n:08d}b", name="get_weather", arguments=f'{{"city": "Twin {n}"}}'),
    ]
    return [
        UserMessage(content=f"Weather in city {n} and its twin?"),
        AIMessage(content=None, tool_calls=calls),
        ToolMessage(tool_call_id=calls[0].id, content='{"sky": "rain", "celsius": 12}'),
        ToolMessage(tool_call_id=calls[1].id, content='{"sky": "clear", "celsius": 19}'),
        AIMessage(content=f"Rain in city {n}, clear in its twin."),
    ]


def chunks(conversation: str, size: int) -> Iterator[list[Message]]:
    """The conversation's messages, a system message and then whole exchanges up to at least ``size``
    messages, in lists of about 6,000."""
    make = exchange if conversation == "chat" else tool_heavy_exchange
    chunk: list[Message] = [SystemMessage(content="You are a helpful assistant with weather tools.")]
    length, n = 1, 0
    while length < size:
        n += 1
        batch = make(n)
        chunk += batch
        length += len(batch)
        if len(chunk) >= 6_000:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


# -- the package's turn -----------------------------------------------------------------------------------


def never_summarize(request: SummaryRequest) -> str:
    raise AssertionError(f"compaction was due in the benchmark's thread {request.thread_id}")


@dataclass
class Ours:
    """The package's turn on one thread."""

    store: ThreadStore
    thread: LocalThread
    window: str
    response: Any
    compactor: Compactor | None = None

    def make_window(self) -> Any:
        if self.window == "buffered":
            return BufferedContext(BUFFER)
        if self.window == "head-and-tail":
            return HeadAndTailContext(HEAD, TAIL)
        if self.window == "token-limited":
            return TokenLimitedContext(TOKENS, model=MODEL)
        assert self.compactor is not None
        return self.compactor.window()

    def turn(self) -> list[dict[str, Any]]:
        thread, store = self.thread, self.store
        if self.window == ONE_WRITE:
            # The user's message is written with the reply, after the model's call: read, add it to the
            # window, send; append both.
            question = UserMessage(content=QUESTION)
            window = BufferedContext(BUFFER)
            thread.read(store, window)
            window.add_message(question)
            payload = dump_messages(window.get_messages(), model=MODEL)
            thread.append(store, [question, AIMessage.from_litellm(self.response)])
            return payload
        thread.append(store, UserMessage(content=QUESTION))
        request = thread.read(store, self.make_window())
        payload = dump_messages(request, model=MODEL)
        reply = AIMessage.from_litellm(self.response)
        thread.append(store, reply)
        if self.compactor is not None:
            done = self.compactor.compact(store, thread)
            assert not done.due, "compaction became due: the benchmark's thread is too long"
        return payload


# -- the floor: the same turn by hand ---------------------------------------------------------------------


def message_tokens(encode: Callable[[str], list[int]], message: dict[str, Any]) -> int:
    """A hand-written count of a wire dict's tokens (tiktoken over its strings, 3 per message): what a bot
    that budgets tokens without the package would store beside each message."""
    total = 3
    for key, value in message.items():
        if isinstance(value, str):
            total += len(encode(value))
        elif key == "tool_calls":
            total += sum(len(encode(call["function"]["arguments"])) for call in value)
        elif isinstance(value, list):
            total += sum(len(encode(part.get("text", ""))) or 85 for part in value)
    return total


class Floor:
    """The hand-written turn on one thread of a schema of its own (a table of threads and their lengths,
    a table of messages, a table of summaries); subclasses run the SQL."""

    def __init__(self, window: str, response: Any, encode: Callable[[str], list[int]]) -> None:
        self.window = window
        self.response = response
        self.encode = encode
        self.thread_id = uuid.uuid4().hex
        self.counted = window in ("token-limited", "compacting")

    def turn(self) -> list[dict[str, Any]]:
        user = {"role": "user", "content": QUESTION}
        if self.window != ONE_WRITE:
            self.append([user])
        history = self.read()
        if self.window == ONE_WRITE:
            history.append(user)
        message = self.response.choices[0].message
        reply: dict[str, Any] = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            reply["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.function.name, "arguments": c.function.arguments},
                }
                for c in message.tool_calls
            ]
        self.append([user, reply] if self.window == ONE_WRITE else [reply])
        return history

    def tokens(self, message: dict[str, Any]) -> int:
        return message_tokens(self.encode, message) if self.counted else 0

    def read(self) -> list[dict[str, Any]]:
        if self.window in ("buffered", ONE_WRITE):
            return [json.loads(text) for _, text in self.rows_around(0, BUFFER)]
        if self.window == "head-and-tail":
            rows = self.rows_around(HEAD, TAIL)
            history = [json.loads(text) for _, text in rows]
            left_out = rows[HEAD + 1][0] - HEAD - 1 if len(rows) > HEAD + 1 else 0
            if not left_out:
                return history
            note = {"role": "user", "content": f"[{left_out} earlier messages left out.]"}
            return [*history[: HEAD + 1], note, *history[HEAD + 1 :]]
        upto, summary = (0, None) if self.window == "token-limited" else self.summary()
        budget = (TOKENS if self.window == "token-limited" else COMPACT_LIMIT) - 3
        system, tail = self.newest_within(upto, budget)
        kept = [json.loads(system[0]), *([json.loads(summary)] if summary else [])]
        budget -= system[1]
        spent = 0
        texts = []
        for text, tokens in tail:
            if spent + tokens > budget:
                break
            spent += tokens
            texts.append(text)
        # A compacting bot decides here, from what it read, whether a summary is due (it is not).
        return kept + [json.loads(text) for text in reversed(texts)]

    # the SQL
    def append(self, messages: list[dict[str, Any]]) -> None:
        """Append ``messages`` at the end, in one transaction."""
        raise NotImplementedError

    def rows_around(self, head: int, tail: int) -> list[tuple[int, str]]:
        """The positions and texts of the positions up to ``head`` and of the last ``tail``, in order."""
        raise NotImplementedError

    def summary(self) -> tuple[int, str | None]:
        raise NotImplementedError

    def newest_within(self, upto: int, budget: int) -> tuple[tuple[str, int], list[tuple[str, int]]]:
        """The system message's text and tokens, and the messages after ``upto`` from the newest back
        (text, tokens), as many as ``budget`` could take."""
        raise NotImplementedError


SQLITE_FLOOR_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, length INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS messages (thread_id TEXT NOT NULL, position INTEGER NOT NULL, "
    "message TEXT NOT NULL, role TEXT NOT NULL, tokens INTEGER NOT NULL, PRIMARY KEY (thread_id, position))",
    "CREATE TABLE IF NOT EXISTS summaries (thread_id TEXT NOT NULL, upto INTEGER NOT NULL, "
    "summary TEXT NOT NULL, PRIMARY KEY (thread_id, upto))",
)


class SQLiteFloor(Floor):
    def __init__(self, conn: Any, window: str, response: Any, encode: Callable[[str], list[int]]) -> None:
        super().__init__(window, response, encode)
        self.conn = conn

    def append(self, messages: list[dict[str, Any]]) -> None:
        conn = self.conn
        rows = [(json.dumps(m), m["role"], self.tokens(m)) for m in messages]
        conn.execute("BEGIN IMMEDIATE")
        (length,) = conn.execute(
            "UPDATE threads SET length = length + ? WHERE id = ? RETURNING length",
            (len(rows), self.thread_id),
        ).fetchone()
        first = length - len(rows)
        conn.executemany(
            "INSERT INTO messages VALUES (?, ?, ?, ?, ?)",
            [(self.thread_id, first + n, *row) for n, row in enumerate(rows)],
        )
        conn.execute("COMMIT")

    def rows_around(self, head: int, tail: int) -> list[tuple[int, str]]:
        # Two index ranges (an OR of the two would scan the thread).
        return self.conn.execute(  # type: ignore[no-any-return]
            "SELECT position, message FROM (SELECT message, position FROM messages WHERE thread_id = ?1 "
            "AND position <= ?2 UNION ALL SELECT message, position FROM messages WHERE thread_id = ?1 AND "
            "position >= max((SELECT length FROM threads WHERE id = ?1) - ?3, ?2 + 1)) ORDER BY position",
            (self.thread_id, head, tail),
        ).fetchall()

    def summary(self) -> tuple[int, str | None]:
        row = self.conn.execute(
            "SELECT upto, summary FROM summaries WHERE thread_id = ? ORDER BY upto DESC LIMIT 1",
            (self.thread_id,),
        ).fetchone()
        return (0, None) if row is None else (int(row[0]), row[1])

    def newest_within(self, upto: int, budget: int) -> tuple[tuple[str, int], list[tuple[str, int]]]:
        conn = self.conn
        conn.execute("BEGIN")  # one snapshot for the two statements
        system = conn.execute(
            "SELECT message, tokens FROM messages WHERE thread_id = ? AND position = 0", (self.thread_id,)
        ).fetchone()
        rows = conn.execute(
            "SELECT message, tokens FROM messages WHERE thread_id = ? AND position > ? "
            "ORDER BY position DESC",
            (self.thread_id, max(upto - 1, 0)),
        )
        tail, spent = [], 0
        for text, tokens in rows:  # sqlite3 steps lazily: only what the budget takes is read
            tail.append((text, tokens))
            spent += tokens
            if spent > budget:
                break
        conn.execute("COMMIT")
        return system, tail


POSTGRES_FLOOR_SCHEMA = (
    "CREATE TABLE threads (id text PRIMARY KEY, length integer NOT NULL)",
    "CREATE TABLE messages (thread_id text NOT NULL, position integer NOT NULL, message text NOT NULL, "
    "role text NOT NULL, tokens integer NOT NULL, PRIMARY KEY (thread_id, position))",
    "CREATE TABLE summaries (thread_id text NOT NULL, upto integer NOT NULL, summary text NOT NULL, "
    "PRIMARY KEY (thread_id, upto))",
)


class PostgresFloor(Floor):
    def __init__(self, conn: Any, window: str, response: Any, encode: Callable[[str], list[int]]) -> None:
        super().__init__(window, response, encode)
        self.conn = conn

    def append(self, messages: list[dict[str, Any]]) -> None:
        # One statement: the length bumped and the rows inserted.
        self.conn.execute(
            "WITH t AS (UPDATE threads SET length = length + %(n)s WHERE id = %(id)s RETURNING length) "
            "INSERT INTO messages SELECT %(id)s, t.length - %(n)s + m.n - 1, m.message, m.role, m.tokens "
            "FROM t, unnest(%(texts)s::text[], %(roles)s::text[], %(tokens)s::int[]) WITH ORDINALITY "
            "AS m (message, role, tokens, n)",
            {
                "id": self.thread_id,
                "n": len(messages),
                "texts": [json.dumps(m) for m in messages],
                "roles": [m["role"] for m in messages],
                "tokens": [self.tokens(m) for m in messages],
            },
        )

    def rows_around(self, head: int, tail: int) -> list[tuple[int, str]]:
        # The newest rows by a backward index scan (a bound computed from the length is not an index bound
        # PostgreSQL takes: it scanned the thread).
        return self.conn.execute(  # type: ignore[no-any-return]
            "SELECT position, message FROM ((SELECT position, message FROM messages WHERE thread_id = %(id)s "
            "AND position <= %(head)s) UNION ALL (SELECT position, message FROM messages WHERE thread_id = "
            "%(id)s AND position > %(head)s ORDER BY position DESC LIMIT %(tail)s)) AS kept "
            "ORDER BY position",
            {"id": self.thread_id, "head": head, "tail": tail},
        ).fetchall()

    def summary(self) -> tuple[int, str | None]:
        row = self.conn.execute(
            "SELECT upto, summary FROM summaries WHERE thread_id = %s ORDER BY upto DESC LIMIT 1",
            (self.thread_id,),
        ).fetchone()
        return (0, None) if row is None else (int(row[0]), row[1])

    def newest_within(self, upto: int, budget: int) -> tuple[tuple[str, int], list[tuple[str, int]]]:
        # One statement: the system message and a page from the end large enough for the budget.
        rows = self.conn.execute(
            "(SELECT message, tokens, position FROM messages WHERE thread_id = %s AND position = 0) "
            "UNION ALL (SELECT message, tokens, position FROM messages WHERE thread_id = %s "
            "AND position > %s ORDER BY position DESC LIMIT 400)",
            (self.thread_id, self.thread_id, max(upto - 1, 0)),
        ).fetchall()
        system = next((text, tokens) for text, tokens, position in rows if position == 0)
        tail = [(text, tokens) for text, tokens, position in rows if position != 0]
        return system, tail


# -- setting the threads up -------------------------------------------------------------------------------


@dataclass
class Config:
    """One configuration: the package's turn and the floor's, on threads of the same messages."""

    backend: str
    size: int
    conversation: str
    window: str
    ours: Ours
    floor: Floor
    reset: Callable[[], None]
    """Sets both threads back to their length before the round (outside the timing)."""
    times: list[float] = field(default_factory=list)
    floor_times: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.size:>7,}  {self.conversation:<10}  {self.window:<17}"


class Backend:
    """One database: the package's store and the floor's connection for each durability setting, the
    threads copied from one source thread per size and conversation (by SQL, outside the timing), and set
    back to their length after each round. Subclasses hold the SQL of each database."""

    name = ""
    setting_name = ""
    settings: dict[str, tuple[ThreadStore, Any]]
    """By setting: the package's store, and the floor's connection at the same setting."""
    raws: dict[str, Any]
    """By setting: a connection to the package's tables, to copy threads into its store."""
    sources: dict[str, str] = {}  # noqa: RUF012  # read only
    """By setting: the prefix of the tables ``source()`` builds in, where they are another database's."""

    def label(self, setting: str) -> str:
        return f"{self.name} {self.setting_name}={setting}"

    def source(self, conversation: str, size: int) -> str:
        store = next(iter(self.settings.values()))[0]
        thread_id = store.create_thread()
        for batch in chunks(conversation, size):
            store.append(thread_id, batch)
        return thread_id

    def copy_thread(self, source: str, length: int, setting: str) -> str:
        """A new thread of the store of ``setting`` holding the first ``length`` messages of ``source`` (a
        thread of the first setting's store, from ``source()``)."""
        copy = uuid.uuid4().hex
        statements = tuple(sql.format(source=self.sources.get(setting, "")) for sql in self.COPY)
        self.run(self.raws[setting], statements, [(copy, copy, length, source), (copy, source, length)])
        return copy

    def fill_floor(self, conn: Any, floor: Floor, rows: list[tuple[str, str, int]], upto: int | None) -> None:
        summary = summary_message("The conversation so far, summarized.").model_dump_json()
        self.run(
            conn,
            self.FILL,
            [(floor.thread_id, len(rows))]
            + [[(floor.thread_id, p, text, role, tokens) for p, (text, role, tokens) in enumerate(rows)]]
            + ([(floor.thread_id, upto, summary)] if upto is not None else []),
        )

    def truncate_floor(self, conn: Any, floor: Floor, length: int) -> None:
        self.run(conn, self.FLOOR_TRUNCATE, [(floor.thread_id, length), (length, floor.thread_id)])

    COPY: tuple[str, ...] = ()
    FILL: tuple[str, ...] = ()
    FLOOR_TRUNCATE: tuple[str, ...] = ()

    def run(self, conn: Any, statements: tuple[str, ...], parameters: list[Any]) -> None:
        """``statements`` in one transaction, each with its parameters (a list of them: executemany)."""
        raise NotImplementedError

    def floor(self, conn: Any, window: str, response: Any, encode: Callable[[str], list[int]]) -> Floor:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class SQLiteBackend(Backend):
    """SQLite: for each ``synchronous`` setting, the package's store on a file of its own and the floor's
    tables on another, as a bot's process has its store: no other connection writes to either file between
    two turns (a write from another connection makes SQLite drop a connection's page cache)."""

    name, setting_name = "SQLite", "synchronous"
    COPY = (
        "INSERT INTO thread_store_threads (id, state, kind, length, created_at, updated_at, ordinal) "
        "SELECT ?, replace(state, id, ?), kind, ?, created_at, updated_at, "
        "(SELECT coalesce(max(ordinal), 0) + 1 FROM main.thread_store_threads) "
        "FROM {source}thread_store_threads WHERE id = ?",
        "INSERT INTO thread_store_messages (thread_id, position, message, created_at, message_id, "
        "metadata, role) SELECT ?, position, message, created_at, message_id, metadata, role FROM "
        "{source}thread_store_messages WHERE thread_id = ? AND position < ?",
    )
    FILL = (
        "INSERT INTO threads VALUES (?, ?)",
        "INSERT INTO messages VALUES (?, ?, ?, ?, ?)",
        "INSERT INTO summaries VALUES (?, ?, ?)",
    )
    FLOOR_TRUNCATE = (
        "DELETE FROM messages WHERE thread_id = ? AND position >= ?",
        "UPDATE threads SET length = ? WHERE id = ?",
    )

    def __init__(self, directory: Path, settings: tuple[str, ...]) -> None:
        import sqlite3

        self.settings, self.raws, self.sources = {}, {}, {}
        first = directory / f"turn-{settings[0].lower()}.sqlite"
        for setting in settings:
            path = directory / f"turn-{setting.lower()}.sqlite"
            floor = directory / f"floor-{setting.lower()}.sqlite"
            conn = sqlite3.connect(floor, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA synchronous = {setting}")
            for statement in SQLITE_FLOOR_SCHEMA:
                conn.execute(statement)
            store = SQLiteThreadStore(path, synchronous=setting)  # type: ignore[arg-type]
            store.threads()  # its tables made, for the copies
            self.settings[setting] = (store, conn)
            self.raws[setting] = raw = sqlite3.connect(path, isolation_level=None)
            if path != first:  # source() builds its threads in the first setting's store
                raw.execute("ATTACH DATABASE ? AS source", (str(first),))
                self.sources[setting] = "source."

    def run(self, conn: Any, statements: tuple[str, ...], parameters: list[Any]) -> None:
        conn.execute("BEGIN IMMEDIATE")
        for statement, values in zip(statements, parameters, strict=False):
            if isinstance(values, list):
                conn.executemany(statement, values)
            else:
                conn.execute(statement, values)
        conn.execute("COMMIT")

    def floor(self, conn: Any, window: str, response: Any, encode: Callable[[str], list[int]]) -> Floor:
        return SQLiteFloor(conn, window, response, encode)

    def close(self) -> None:
        for store, conn in self.settings.values():
            store.close()
            conn.close()
        for raw in self.raws.values():
            raw.close()


class PostgresBackend(Backend):
    """PostgreSQL: the package's store in a schema of its own, the floor's tables in another (a store and
    a connection per ``synchronous_commit`` setting, given in the connection's options); both schemas
    dropped at the end."""

    name, setting_name = "PostgreSQL", "synchronous_commit"
    COPY = tuple(
        statement.replace("?", "%s")
        for statement in (
            "INSERT INTO thread_store_threads (id, state, kind, length) "
            "SELECT ?, replace(state, id, ?), kind, ? FROM thread_store_threads WHERE id = ?",
            SQLiteBackend.COPY[1].replace("{source}", ""),
        )
    )
    FILL = tuple(statement.replace("?", "%s") for statement in SQLiteBackend.FILL)
    FLOOR_TRUNCATE = tuple(statement.replace("?", "%s") for statement in SQLiteBackend.FLOOR_TRUNCATE)

    def __init__(self, dsn: str, settings: tuple[str, ...]) -> None:
        import psycopg
        from psycopg.conninfo import make_conninfo

        self.dsn = dsn
        suffix = uuid.uuid4().hex[:8]
        self.schemas = (f"turn_{suffix}", f"turn_floor_{suffix}")
        with psycopg.connect(dsn, autocommit=True) as conn:
            for schema in self.schemas:
                conn.execute(f'CREATE SCHEMA "{schema}"')

        def options(schema: str, setting: str) -> str:
            return make_conninfo(dsn, options=f"-c search_path={schema} -c synchronous_commit={setting}")

        self.settings = {
            setting: (
                PostgresThreadStore(options(self.schemas[0], setting)),
                psycopg.connect(options(self.schemas[1], setting), autocommit=True),
            )
            for setting in settings
        }
        raw = psycopg.connect(options(self.schemas[0], "on"), autocommit=True)
        self.raws = dict.fromkeys(settings, raw)  # one schema: the copies need no other
        for statement in POSTGRES_FLOOR_SCHEMA:
            next(iter(self.settings.values()))[1].execute(statement)

    def run(self, conn: Any, statements: tuple[str, ...], parameters: list[Any]) -> None:
        with conn.transaction():
            for statement, values in zip(statements, parameters, strict=False):
                if isinstance(values, list):
                    with conn.cursor() as cursor:
                        cursor.executemany(statement, values)
                else:
                    conn.execute(statement, values)

    def floor(self, conn: Any, window: str, response: Any, encode: Callable[[str], list[int]]) -> Floor:
        return PostgresFloor(conn, window, response, encode)

    def close(self) -> None:
        import psycopg

        for store, conn in self.settings.values():
            store.close()
            conn.close()
        next(iter(self.raws.values())).close()
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            for schema in self.schemas:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def checkpoint_at(length: int, roles: list[str]) -> int:
    """A position about ``CHECKPOINT_TAIL`` messages before the end where an exchange starts on a user
    turn."""
    for position in range(max(1, length - CHECKPOINT_TAIL), length):
        if roles[position] == "user":
            return position
    raise AssertionError("no user turn near the end")


def build_configs(sizes: tuple[int, ...], backends: list[Backend], response: Any) -> list[Config]:
    from messages._tokens import _encoding

    encoding = _encoding("o200k_base")
    assert encoding is not None, "tiktoken's o200k_base file is not on this machine (litellm ships it)"
    encode = encoding.encode_ordinary
    configs: list[Config] = []
    for size in sizes:
        for conversation in CONVERSATIONS:
            started = time.perf_counter()
            sources = {backend.name: backend.source(conversation, size) for backend in backends}
            store = next(iter(backends[0].settings.values()))[0]
            source = sources[backends[0].name]
            length = store.thread_info(source).length
            texts = [m.model_dump_json() for m in store.messages(source)]
            roles = store.roles(source)
            rows = [(t, r, message_tokens(encode, json.loads(t))) for t, r in zip(texts, roles, strict=True)]
            upto = checkpoint_at(length, roles)
            for window in WINDOWS:
                for backend in backends:
                    for setting, (store, conn) in backend.settings.items():
                        thread_id = backend.copy_thread(sources[backend.name], length, setting)
                        floor = backend.floor(conn, window, response, encode)
                        backend.fill_floor(conn, floor, rows, upto if window == "compacting" else None)
                        reset = resetting(backend, store, conn, thread_id, floor, length)
                        configs.append(
                            make_config(
                                backend.label(setting), store, thread_id, floor, size, conversation, window,
                                response, upto, reset,
                            )
                        )  # fmt: skip
            print(
                f"  built {size:,} messages, {conversation}: {time.perf_counter() - started:.1f} s",
                flush=True,
            )
    return configs


def make_config(
    backend: str,
    store: ThreadStore,
    thread_id: str,
    floor: Floor,
    size: int,
    conversation: str,
    window: str,
    response: Any,
    upto: int,
    reset: Callable[[], None],
) -> Config:
    compactor = None
    if window == "compacting":
        store.add_checkpoint(
            thread_id, summary_message("The conversation so far, summarized."), upto=upto, base=None
        )
        compactor = Compactor(never_summarize, limit=COMPACT_LIMIT, model=MODEL)
    ours = Ours(store, LocalThread(id=thread_id), window, response, compactor)
    return Config(backend, size, conversation, window, ours, floor, reset)


def resetting(
    backend: Backend, store: ThreadStore, conn: Any, thread_id: str, floor: Floor, length: int
) -> Callable[[], None]:
    """Set the thread and the floor's back to ``length`` messages, each through its own connection (the
    store's ``pop``): a write from another connection would make SQLite drop the store's page cache before
    its next turn, a cost the floor, set back on its own connection, would not pay."""

    def reset() -> None:
        for _ in range(store.thread_info(thread_id).length - length):
            store.pop(thread_id)
        backend.truncate_floor(conn, floor, length)

    return reset


# -- measuring ---------------------------------------------------------------------------------------------


def clock(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


Turn = tuple[int, str, str]
"""A turn's kind: the thread's size, its conversation and its window."""


def kind(config: Config) -> Turn:
    return (config.size, config.conversation, config.window)


def measure(
    configs: list[Config], litellm_calls: dict[Turn, Callable[[], object]], rounds: int
) -> dict[Turn, list[float]]:
    """Run the rounds; the times of litellm's call of each kind of turn's own request, each made right
    after the first configuration of that kind (in the same round, the collector off as for the turns)."""
    litellm_times: dict[Turn, list[float]] = {turn: [] for turn in litellm_calls}
    for config in configs:  # warm up: first-call imports and caches, the first counts of each thread
        config.ours.turn()
        config.floor.turn()
        config.reset()
    for call in litellm_calls.values():
        call()
    first = {kind(config): config for config in reversed(configs)}  # the first configuration of each kind
    for round_ in range(rounds):
        gc.collect()
        gc.disable()
        try:
            order = configs[round_ % len(configs) :] + configs[: round_ % len(configs)]
            for index, config in enumerate(order):
                if (round_ + index) % 2:
                    floor_time, ours_time = clock(config.floor.turn), clock(config.ours.turn)
                else:
                    ours_time, floor_time = clock(config.ours.turn), clock(config.floor.turn)
                config.times.append(ours_time)
                config.floor_times.append(floor_time)
                config.ratios.append(ours_time / floor_time)
                if first[kind(config)] is config:
                    litellm_times[kind(config)].append(clock(litellm_calls[kind(config)]))
        finally:
            gc.enable()
        for config in configs:
            config.reset()
    return litellm_times


def report(configs: list[Config], litellm: dict[Turn, float]) -> list[Figure]:
    """The tables and the verdicts; ``litellm`` is the median of litellm's call of each kind of turn's own
    request."""
    figures: list[Figure] = []
    backends = list(dict.fromkeys(config.backend for config in configs))
    for backend in backends:
        rows = [config for config in configs if config.backend == backend]
        print(f"\n== {backend}: the package's turn beside the floor (same setting) and litellm's call")
        print(
            f"  {'size':>7}  {'conversation':<10}  {'window':<17}  {'ours':>11}  {'floor':>11}  "
            f"{'vs floor':>8}  {'% of litellm':>12}"
        )
        for config in rows:
            ours = statistics.median(config.times)
            floor = statistics.median(config.floor_times)
            ratio = statistics.median(config.ratios)
            print(
                f"  {config.label}  {fmt_time(ours)}  {fmt_time(floor)}  {ratio:7.2f}x  "
                f"{100 * ours / litellm[kind(config)]:11.1f}%"
            )
        worst = max(rows, key=lambda c: statistics.median(c.ratios))
        figures.append(
            Figure(
                f"{backend}: slowest turn vs the floor "
                f"({worst.size:,}, {worst.conversation}, {worst.window})",
                statistics.median(worst.ratios),
                FLOOR_TARGET,
            )
        )
        slowest = max(rows, key=lambda c: statistics.median(c.times) / litellm[kind(c)])
        share = 100 * statistics.median(slowest.times) / litellm[kind(slowest)]
        target = LITELLM_TARGET if backend == f"SQLite synchronous={DEFAULT_SETTING}" else None
        figures.append(
            Figure(
                f"{backend}: largest share of litellm's call "
                f"({slowest.size:,}, {slowest.conversation}, {slowest.window})",
                share,
                target,
                unit="%",
            )
        )
    print("\n== the turn that writes once (the user's message with the reply) vs twice, buffered window")
    for backend in backends:
        for config in configs:
            if config.backend != backend or config.window != ONE_WRITE:
                continue
            twice = next(
                c
                for c in configs
                if (c.backend, c.size, c.conversation, c.window)
                == (backend, config.size, config.conversation, "buffered")
            )
            ours, floor = statistics.median(config.times), statistics.median(config.floor_times)
            ours2, floor2 = statistics.median(twice.times), statistics.median(twice.floor_times)
            print(
                f"  {backend:<36} {config.size:>7,} {config.conversation:<10}  ours {fmt_time(ours)} "
                f"({ours / ours2:.2f}x of twice), floor {fmt_time(floor)} ({floor / floor2:.2f}x of twice)"
            )
    return figures


def ids_figure(backends: list[Backend], size: int, rounds: int) -> list[Figure]:
    """An append of one message to a thread of ``size`` messages, the id minted (time-ordered) or a random
    uuid4 given, interleaved: what time-ordered ids spare the thread's unique index of ids."""
    figures = []
    message = UserMessage(content=QUESTION)
    for backend in backends:
        for setting, (store, _) in list(backend.settings.items())[:1]:
            source = backend.source("chat", size)
            length = store.thread_info(source).length
            minted, random = (backend.copy_thread(source, length, setting) for _ in range(2))
            times: dict[str, list[float]] = {"minted": [], "uuid4": []}
            gc.disable()
            try:
                for round_ in range(rounds):
                    pair = [("minted", minted, None), ("uuid4", random, uuid.uuid4().hex)]
                    for name, thread_id, given in pair if round_ % 2 else pair[::-1]:
                        ids = None if given is None else [given]
                        start = time.perf_counter()
                        store.append(thread_id, message, ids=ids)
                        times[name].append(time.perf_counter() - start)
            finally:
                gc.enable()
            ratio = statistics.median(times["uuid4"]) / statistics.median(times["minted"])
            print(
                f"  {backend.label(setting)}: append one message at {size:,}: minted id "
                f"{fmt_time(statistics.median(times['minted']))}, uuid4 given "
                f"{fmt_time(statistics.median(times['uuid4']))} ({ratio:.2f}x)"
            )
            figures.append(Figure(f"{backend.name}: append with a uuid4 id vs a minted one, {size:,}", ratio))
    return figures


DEFAULT_SETTING = inspect.signature(SQLiteThreadStore).parameters["synchronous"].default
"""SQLiteThreadStore's default ``synchronous``: the 10% target is judged there."""
POSTGRES_SETTINGS = ("on", "off")
QUICK_POSTGRES_SETTINGS = ("on",)


def main(quick: bool = False) -> list[Figure]:
    import litellm

    from messages.testing import StandInServer, scripted

    sizes = QUICK_SIZES if quick else SIZES
    rounds = QUICK_ROUNDS if quick else ROUNDS
    dsn = os.environ.get(DSN_VARIABLE)
    with ExitStack() as stack:
        server = stack.enter_context(StandInServer(scripted(AIMessage(content=REPLY))))
        kwargs = server.completion_kwargs(MODEL)
        response = litellm.completion(model=MODEL, messages=[{"role": "user", "content": QUESTION}], **kwargs)
        directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-turn-")))
        backends: list[Backend] = [SQLiteBackend(directory, QUICK_SETTINGS if quick else SETTINGS)]
        stack.callback(backends[0].close)
        if dsn:
            backends.append(PostgresBackend(dsn, QUICK_POSTGRES_SETTINGS if quick else POSTGRES_SETTINGS))
            stack.callback(backends[-1].close)
        print(
            f"\n== a bot's whole turn: building the threads ({', '.join(f'{s:,}' for s in sizes)} messages)"
        )
        configs = build_configs(sizes, backends, response)
        lengths: dict[Turn, int] = {}
        # litellm's call of each kind of turn's own request: the list its window gave, dumped for the model.
        litellm_calls: dict[Turn, Callable[[], object]] = {}
        for config in configs:
            if kind(config) not in litellm_calls:
                payload = config.ours.turn()
                config.reset()

                def litellm_call(payload: list[dict[str, Any]] = payload) -> None:
                    server.requests.clear()
                    litellm.completion(model=MODEL, messages=payload, **kwargs)

                litellm_calls[kind(config)] = litellm_call
                lengths[kind(config)] = len(payload)
        print(f"  {len(configs)} configurations, {rounds} rounds", flush=True)
        litellm_times = measure(configs, litellm_calls, rounds)
        litellm_medians = {turn: statistics.median(times) for turn, times in litellm_times.items()}
        print("\n== litellm.completion of each kind of turn's own request to the stand-in (wall clock)")
        for (size, conversation, window), median in litellm_medians.items():
            print(
                f"  {size:>7,}  {conversation:<10}  {window:<17}  {lengths[(size, conversation, window)]:>4} "
                f"messages  {fmt_time(median)}"
            )
        figures = report(configs, litellm_medians)
        if not quick:
            print("\n== message ids: time-ordered (minted) or random (uuid4 given)")
            figures += ids_figure(backends, sizes[-1], 200)
    if not dsn:
        print(f"\n(PostgreSQL skipped: set {DSN_VARIABLE}; `scripts/postgres.sh run CMD` starts a server)")
    print("\n== turn: verdicts")
    for figure in figures:
        print(f"  {judged(figure)}")
    return figures
