"""How the store tests reach each backend: a spec (JSON-able, so a child process can open the same store)."""

from __future__ import annotations

import os
import uuid
from typing import Any

from messages import InMemoryThreadStore, PostgresThreadStore, SQLiteThreadStore, ThreadStore

DSN_VARIABLE = "MESSAGES_TEST_POSTGRES_DSN"
UNAVAILABLE_VARIABLE = "MESSAGES_TEST_POSTGRES_UNAVAILABLE"
"""Set by scripts/dev.py test to what scripts/postgres.sh said when it could not start a server."""

Spec = dict[str, Any]


def open_store(spec: Spec) -> ThreadStore:
    """The store a spec names: ``{"backend": "sqlite", "path": ...}``, ``{"backend": "postgres",
    "dsn": ...}`` or ``{"backend": "memory"}``."""
    if spec["backend"] == "memory":
        return InMemoryThreadStore()
    if spec["backend"] == "sqlite":
        return SQLiteThreadStore(spec["path"])
    if spec["backend"] == "postgres":
        return PostgresThreadStore(spec["dsn"])
    raise ValueError(f"unknown backend {spec['backend']!r}")


def postgres_schema_dsn(dsn: str, schema: str) -> str:
    """``dsn`` with every connection's search_path set to ``schema``: each test gets its own tables."""
    from psycopg.conninfo import make_conninfo

    return make_conninfo(dsn, options=f"-c search_path={schema}")


def new_schema(dsn: str) -> str:
    import psycopg

    schema = f"test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    return schema


def drop_schema(dsn: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def postgres_dsn() -> str | None:
    return os.environ.get(DSN_VARIABLE) or None


def no_server_reason() -> str:
    """Why there is no PostgreSQL server to test against: what stopped one from starting, when known."""
    why = " ".join(os.environ.get(UNAVAILABLE_VARIABLE, "").split())
    if why:
        return f"no PostgreSQL server: scripts/postgres.sh could not start one ({why})"
    return (
        f"no PostgreSQL server configured: set {DSN_VARIABLE}, or run the tests with "
        "`python3 scripts/dev.py test` (which starts one)"
    )


def raw_rows(spec: Spec, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run one statement straight on the backend's database, around the store (``?`` placeholders)."""
    if spec["backend"] == "sqlite":
        import sqlite3

        conn = sqlite3.connect(spec["path"], isolation_level=None)
        try:
            cursor = conn.execute(sql, params)
            return [tuple(row) for row in cursor.fetchall()] if cursor.description else []
        finally:
            conn.close()
    if spec["backend"] == "postgres":
        import psycopg

        with psycopg.connect(spec["dsn"], autocommit=True) as conn:
            cursor = conn.execute(sql.replace("?", "%s"), params)  # type: ignore[arg-type]
            return [tuple(row) for row in cursor.fetchall()] if cursor.description else []
    raise ValueError(f"no database behind backend {spec['backend']!r}")
