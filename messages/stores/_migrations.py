"""The schema of the SQL stores: the migration steps of each dialect, and one runner for both, without I/O.

A step is a name and its SQL statements. Each is applied once, in order, inside one transaction taken with
the write lock (SQLite's ``BEGIN IMMEDIATE``; PostgreSQL's advisory lock, so that processes starting
together do not race), and recorded by name in ``thread_store_migrations`` (simonw/llm's pattern). A
database whose table names a step this version does not know was written by a newer version, and is
refused rather than misread.

``migrate`` is a generator: it yields ``(sql, params)`` statements and is sent each one's rows, so the same
runner drives a sqlite3 connection, a psycopg connection and a psycopg ``AsyncConnection``
(``run_sync`` / ``run_async``), as the sans-I/O protocol libraries do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from messages.errors import StoreError
from messages.stores._codec import utc_now

__all__ = [
    "POSTGRES",
    "POSTGRES_MIGRATIONS",
    "SQLITE",
    "SQLITE_MIGRATIONS",
    "Dialect",
    "Migration",
    "migrate",
    "run_async",
    "run_sync",
]

Statement = tuple[str, tuple[object, ...] | None]
Rows = list[tuple[Any, ...]]


@dataclass(frozen=True)
class Migration:
    """One schema step: its name (recorded once applied) and its statements."""

    name: str
    statements: tuple[str, ...]


@dataclass(frozen=True)
class Dialect:
    """What differs between the SQL databases, for the runner."""

    begin: str
    """Starts a transaction that holds the write lock (or takes it first)."""
    lock: str | None
    """Run first in that transaction, to keep concurrent migrations apart (where ``begin`` does not)."""
    has_table: str
    """One row whose first value is not NULL when ``thread_store_migrations`` exists."""
    create_table: str
    record: str
    """Records one step by name (and time)."""


SQLITE = Dialect(
    begin="BEGIN IMMEDIATE",
    lock=None,
    has_table="SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'thread_store_migrations'",
    create_table=(
        "CREATE TABLE IF NOT EXISTS thread_store_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    ),
    record="INSERT INTO thread_store_migrations (name, applied_at) VALUES (?, ?)",
)

# pg_advisory_xact_lock key for migrations: any constant; this one spells "msgs".
POSTGRES = Dialect(
    begin="BEGIN",
    lock=f"SELECT pg_advisory_xact_lock({0x6D736773})",
    has_table="SELECT to_regclass('thread_store_migrations') IS NOT NULL",
    create_table=(
        "CREATE TABLE IF NOT EXISTS thread_store_migrations "
        "(name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
    ),
    record="INSERT INTO thread_store_migrations (name, applied_at) VALUES (%s, %s::timestamptz)",
)


def migrate(dialect: Dialect, steps: Sequence[Migration], where: str) -> Generator[Statement, Rows, None]:
    """The statements that bring a database (described by ``where`` in errors) up to ``steps``: nothing
    but one read when it is up to date (no write lock taken). ``StoreError`` for a newer schema."""
    known = [step.name for step in steps]
    applied = yield from _applied(dialect)
    if applied == set(known):
        return
    yield dialect.begin, None
    if dialect.lock is not None:
        yield dialect.lock, None
    yield dialect.create_table, None
    applied = yield from _applied(dialect)
    unknown = sorted(applied - set(known))
    if unknown:
        raise StoreError(
            f"{where} was written by a newer version of llm-messages: it has the schema migrations "
            f"{', '.join(unknown)}, which this version does not know; upgrade llm-messages to open it"
        )
    for step in steps:
        if step.name not in applied:
            for sql in step.statements:
                yield sql, None
            yield dialect.record, (step.name, utc_now().isoformat())
    yield "COMMIT", None


def _applied(dialect: Dialect) -> Generator[Statement, Rows, set[str]]:
    [(exists,)] = yield dialect.has_table, None
    if not exists:
        return set()
    rows = yield "SELECT name FROM thread_store_migrations", None
    return {name for (name,) in rows}


def run_sync(
    execute: Callable[[str, tuple[object, ...] | None], Rows],
    rollback: Callable[[], None],
    runner: Generator[Statement, Rows, None],
) -> None:
    """Drive ``runner`` with ``execute(sql, params) -> rows``; ``rollback()`` when it fails."""
    try:
        statement = next(runner)
        while True:
            statement = runner.send(execute(*statement))
    except StopIteration:
        return
    except BaseException:
        rollback()
        raise


async def run_async(
    execute: Callable[[str, tuple[object, ...] | None], Awaitable[Rows]],
    rollback: Callable[[], Awaitable[None]],
    runner: Generator[Statement, Rows, None],
) -> None:
    """``run_sync`` for a connection whose statements are awaited."""
    try:
        statement = next(runner)
        while True:
            statement = runner.send(await execute(*statement))
    except StopIteration:
        return
    except BaseException:
        await rollback()
        raise


# -- the steps -------------------------------------------------------------------------------------------

# The role a stored message's dump starts with (every dump does: '{"role":"user",...'); NULL for a damaged
# row, which a read then names.
_SQLITE_ROLE = (
    'CASE WHEN message LIKE \'{"role":"%\' '
    "THEN substr(message, 10, instr(substr(message, 10), '\"') - 1) END"
)

SQLITE_MIGRATIONS: list[Migration] = [
    Migration(
        "m001_create_threads",
        (
            """
            CREATE TABLE thread_store_threads (
                id TEXT PRIMARY KEY,
                state TEXT NOT NULL,             -- the thread value's JSON (LocalThread / RemoteThread)
                length INTEGER NOT NULL DEFAULT 0,
                created_at TEXT NOT NULL,        -- ISO 8601, UTC
                updated_at TEXT NOT NULL
            )
            """,
        ),
    ),
    Migration(
        "m002_create_messages",
        (
            """
            CREATE TABLE thread_store_messages (
                thread_id TEXT NOT NULL REFERENCES thread_store_threads (id),
                position INTEGER NOT NULL,
                message TEXT NOT NULL,           -- the message's lossless JSON dump
                created_at TEXT NOT NULL,
                PRIMARY KEY (thread_id, position)
            )
            """,
        ),
    ),
    # The kind of the saved thread value, where every append and read can check it without parsing the
    # value: only a local thread has messages here. A saved value's JSON starts with its kind.
    Migration(
        "m003_add_thread_kind",
        (
            "ALTER TABLE thread_store_threads ADD COLUMN kind TEXT NOT NULL DEFAULT 'local'",
            "UPDATE thread_store_threads SET kind = 'remote' WHERE state LIKE '{\"kind\":\"remote\"%'",
        ),
    ),
    # threads() lists in creation order. The implicit rowid gave it until now, but VACUUM may renumber the
    # rowids of a table without an INTEGER PRIMARY KEY (https://sqlite.org/lang_vacuum.html): an explicit
    # column keeps it. Existing threads keep the order their rowids give them.
    Migration(
        "m004_add_thread_order",
        (
            "ALTER TABLE thread_store_threads ADD COLUMN ordinal INTEGER",
            "UPDATE thread_store_threads SET ordinal = rowid",
            "CREATE UNIQUE INDEX thread_store_threads_ordinal ON thread_store_threads (ordinal)",
        ),
    ),
    # The envelope of each message: an id unique in its thread (minted for the rows stored before), JSON
    # metadata, and the role, which a window read uses to find the exchanges without parsing messages.
    Migration(
        "m005_add_message_envelope",
        (
            "ALTER TABLE thread_store_messages ADD COLUMN message_id TEXT",
            "ALTER TABLE thread_store_messages ADD COLUMN metadata TEXT",
            "ALTER TABLE thread_store_messages ADD COLUMN role TEXT",
            "UPDATE thread_store_messages "
            f"SET message_id = lower(hex(randomblob(16))), role = {_SQLITE_ROLE}",
            "CREATE UNIQUE INDEX thread_store_messages_id ON thread_store_messages (thread_id, message_id)",
        ),
    ),
    # Summary checkpoints (a summary standing for the messages before a position, chained by base) and
    # token counts by counter, beside the messages: compaction adds rows here and changes no message row.
    # One checkpoint per base and per position (the chain), enforced by the indexes as well as by the
    # compare and set under the write lock.
    Migration(
        "m006_add_checkpoints",
        (
            """
            CREATE TABLE thread_store_checkpoints (
                thread_id TEXT NOT NULL REFERENCES thread_store_threads (id),
                checkpoint_id TEXT NOT NULL,
                base TEXT,                       -- the checkpoint it builds on; NULL for the first
                upto INTEGER NOT NULL,           -- the position it covers up to (exclusive)
                summary TEXT NOT NULL,           -- the summary message's lossless JSON dump
                provenance TEXT NOT NULL,        -- JSON: model, prompt hash, token usage, counter
                created_at TEXT NOT NULL,
                PRIMARY KEY (thread_id, checkpoint_id)
            )
            """,
            "CREATE UNIQUE INDEX thread_store_checkpoints_base "
            "ON thread_store_checkpoints (thread_id, coalesce(base, ''))",
            "CREATE UNIQUE INDEX thread_store_checkpoints_upto ON thread_store_checkpoints (thread_id, upto)",
            """
            CREATE TABLE thread_store_token_counts (
                thread_id TEXT NOT NULL REFERENCES thread_store_threads (id),
                counter TEXT NOT NULL,
                position INTEGER NOT NULL,
                tokens INTEGER NOT NULL,
                PRIMARY KEY (thread_id, counter, position)
            ) WITHOUT ROWID
            """,
        ),
    ),
]

POSTGRES_MIGRATIONS: list[Migration] = [
    Migration(
        "m001_create_threads",
        (
            """
            CREATE TABLE thread_store_threads (
                ordinal bigint GENERATED ALWAYS AS IDENTITY,  -- creation order, for threads()
                id text PRIMARY KEY,
                state text NOT NULL,                           -- the thread value's JSON
                length bigint NOT NULL DEFAULT 0,
                created_at timestamptz NOT NULL DEFAULT now(),
                updated_at timestamptz NOT NULL DEFAULT now()
            )
            """,
        ),
    ),
    # text, not jsonb: the dump is kept byte for byte, and neither parsed on write nor rebuilt on read.
    Migration(
        "m002_create_messages",
        (
            """
            CREATE TABLE thread_store_messages (
                thread_id text NOT NULL REFERENCES thread_store_threads (id) ON DELETE CASCADE,
                position bigint NOT NULL,
                message text NOT NULL,
                created_at timestamptz NOT NULL,
                PRIMARY KEY (thread_id, position)
            )
            """,
        ),
    ),
    Migration(
        "m003_add_thread_kind",
        (
            "ALTER TABLE thread_store_threads ADD COLUMN kind text NOT NULL DEFAULT 'local'",
            "UPDATE thread_store_threads SET kind = 'remote' "
            'WHERE starts_with(state, \'{"kind":"remote"\')',
        ),
    ),
    Migration(
        "m004_add_message_envelope",
        (
            "ALTER TABLE thread_store_messages ADD COLUMN message_id text, ADD COLUMN metadata text, "
            "ADD COLUMN role text",
            "UPDATE thread_store_messages SET message_id = md5(thread_id || ':' || position || ':' || "
            'random()), role = substring(message from \'^\\{"role":"([a-z]+)"\')',
            "ALTER TABLE thread_store_messages ALTER COLUMN message_id SET NOT NULL",
            "CREATE UNIQUE INDEX thread_store_messages_id ON thread_store_messages (thread_id, message_id)",
        ),
    ),
    Migration(
        "m005_add_checkpoints",
        (
            """
            CREATE TABLE thread_store_checkpoints (
                thread_id text NOT NULL REFERENCES thread_store_threads (id) ON DELETE CASCADE,
                checkpoint_id text NOT NULL,
                base text,
                upto bigint NOT NULL,
                summary text NOT NULL,
                provenance text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (thread_id, checkpoint_id)
            )
            """,
            "CREATE UNIQUE INDEX thread_store_checkpoints_base "
            "ON thread_store_checkpoints (thread_id, coalesce(base, ''))",
            "CREATE UNIQUE INDEX thread_store_checkpoints_upto ON thread_store_checkpoints (thread_id, upto)",
            """
            CREATE TABLE thread_store_token_counts (
                thread_id text NOT NULL REFERENCES thread_store_threads (id) ON DELETE CASCADE,
                counter text NOT NULL,
                position bigint NOT NULL,
                tokens bigint NOT NULL,
                PRIMARY KEY (thread_id, counter, position)
            )
            """,
        ),
    ),
]
