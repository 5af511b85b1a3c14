"""Store fixtures: every contract test runs once per backend; PostgreSQL only when a server is configured.

A PostgreSQL server is configured by the DSN in MESSAGES_TEST_POSTGRES_DSN (`scripts/dev.py test` starts
one, and so `.ci/run` too). Without it the PostgreSQL cases skip, saying so (and why the server could not
start, when dev.py tried: MESSAGES_TEST_POSTGRES_UNAVAILABLE);
with it set but unreachable they skip too, except under CI, where they fail. `.ci/run` sets CI, and fails
the run if a server started and any PostgreSQL test skipped all the same.
"""

from __future__ import annotations

import itertools
import multiprocessing
import multiprocessing.context
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from messages import ThreadStore
from tests.stores._backends import (
    DSN_VARIABLE,
    Spec,
    drop_schema,
    new_schema,
    no_server_reason,
    open_store,
    postgres_dsn,
    postgres_schema_dsn,
)
from tests.stores._server import Server, ServerUnavailableError

_postgres_problem: list[str] = []


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The DSN of the configured PostgreSQL server, or a skip saying why there is none."""
    dsn = postgres_dsn()
    if dsn is None:
        pytest.skip(no_server_reason())
    if not _postgres_problem:
        try:
            import psycopg

            # Generous: a failed probe skips (under CI, fails) every PostgreSQL test of this worker, and a
            # busy machine can keep the server's new backend waiting for seconds.
            with psycopg.connect(dsn, connect_timeout=30) as conn:
                conn.execute("SELECT 1")
            _postgres_problem.append("")
        except Exception as exc:
            _postgres_problem.append(f"{type(exc).__name__}: {exc}")
    if _postgres_problem[0]:
        message = f"the PostgreSQL server at {DSN_VARIABLE} is unreachable ({_postgres_problem[0]})"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return dsn


_counter = itertools.count()


@pytest.fixture
def make_spec(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[str], Spec]]:
    """Makes the spec of a fresh, empty store of a backend: a new SQLite file, a new PostgreSQL schema."""
    schemas: list[tuple[str, str]] = []

    def make(backend: str) -> Spec:
        """``backend`` is ``memory``, ``sqlite`` or ``postgres``, with ``-async`` for the async store."""
        name, _, flavour = backend.partition("-")
        api = {"api": "async"} if flavour == "async" else {}
        if name == "memory":
            return {"backend": "memory", **api}
        if name == "sqlite":
            return {"backend": "sqlite", "path": str(tmp_path / f"store{next(_counter)}.db"), **api}
        if name == "postgres":
            dsn = request.getfixturevalue("postgres_server")
            schema = new_schema(dsn)
            schemas.append((dsn, schema))
            return {"backend": "postgres", "dsn": postgres_schema_dsn(dsn, schema), **api}
        raise ValueError(backend)

    yield make
    for dsn, schema in schemas:
        drop_schema(dsn, schema)


@pytest.fixture
def make_store(make_spec: Callable[[str], Spec]) -> Iterator[Callable[[str], ThreadStore]]:
    """Makes a fresh, empty store of a backend; closes it after the test."""
    stores: list[ThreadStore] = []

    def make(backend: str) -> ThreadStore:
        store = open_store(make_spec(backend))
        stores.append(store)
        return store

    yield make
    for store in stores:
        store.close()


# Each backend in both flavours: the sync store, and the async one (behind tests/stores/_backends.Blocking).
ALL = [
    pytest.param("memory", id="memory"),
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    pytest.param("memory-async", id="memory-async"),
    pytest.param("sqlite-async", id="sqlite-async"),
    pytest.param("postgres-async", id="postgres-async", marks=pytest.mark.postgres),
]
DURABLE = [param for param in ALL if not param.values[0].startswith("memory")]


@pytest.fixture(params=ALL)
def backend(request: pytest.FixtureRequest) -> str:
    """Each backend in turn."""
    return str(request.param)


@pytest.fixture(params=DURABLE)
def durable_backend(request: pytest.FixtureRequest) -> str:
    """Each backend that outlives its process (SQLite, PostgreSQL), in both flavours."""
    return str(request.param)


@pytest.fixture(params=["sync", "async"])
def api(request: pytest.FixtureRequest) -> str:
    """Each flavour of the store API, for the tests that name their backend."""
    return str(request.param)


@pytest.fixture
def store(backend: str, make_store: Callable[[str], ThreadStore]) -> ThreadStore:
    """A fresh, empty store of each backend in turn."""
    return make_store(backend)


@pytest.fixture(scope="module")
def processes() -> multiprocessing.context.ForkServerContext:
    """Starts children from a server process that has the store code imported: real processes, each with
    its own connections, that start in milliseconds instead of importing everything anew."""
    context = multiprocessing.get_context("forkserver")
    # psycopg too: the store imports it lazily, and each child would pay for the import.
    context.set_forkserver_preload(["tests.stores._child", "psycopg"])
    return context


@pytest.fixture
def crashable_postgres(postgres_server: str, tmp_path: Path) -> Iterator[Server]:
    """A PostgreSQL server of this test's own (scripts/postgres.sh), which it may crash and start again.

    It needs the configured server (postgres_server) only to skip, or fail under CI, as every PostgreSQL
    test does; the server binaries it runs are the ones scripts/postgres.sh finds."""
    try:
        server = Server.start_new(tmp_path / "pg_ctl.log")
    except ServerUnavailableError as exc:
        message = f"scripts/postgres.sh could not start a server of the test's own ({exc})"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    try:
        yield server
    finally:
        server.stop()
