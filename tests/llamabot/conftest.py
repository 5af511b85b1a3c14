"""What the llamabot tests share: llamabot's message log and spans written under the test's own folder,
the stores of every backend in both flavours (PostgreSQL when a server is configured, as in tests/stores),
and a stand-in OpenAI that checks the tool-call protocol as OpenAI does (``_checking``).

Each test module starts with ``pytest.importorskip("llamabot", reason=MISSING)``: where llamabot is not
installed (beside the newest litellm, which its own range leaves out), the modules skip, saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from messages import (
    AsyncInMemoryThreadStore,
    AsyncPostgresThreadStore,
    AsyncSQLiteThreadStore,
    InMemoryThreadStore,
    PostgresThreadStore,
    SQLiteThreadStore,
)

# ALL: every backend in both flavours (the store a memory is given, an async one as it is); DURABLE: those
# that outlive their process. make_spec and postgres_server are fixtures, used by name.
from tests.stores.conftest import ALL, DURABLE, make_spec, postgres_server  # noqa: F401

with warnings.catch_warnings(), contextlib.suppress(ImportError):
    # llamabot's recorder builds its tables with SQLAlchemy's old declarative_base, which warns once, at its
    # import: imported here, before the test modules, so that the suite's "error" filter does not fail them.
    warnings.simplefilter("ignore", DeprecationWarning)
    import llamabot.recorder  # noqa: F401


@pytest.fixture(autouse=True)
def llamabot_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """llamabot's message log, spans and prompt versions, in the test's folder instead of the project's
    ``.llamabot/`` (llamabot's own tests redirect them the same way); in a ``.llamabot`` folder there,
    where llamabot writes its ``.gitignore`` (elsewhere it adds the file's name to the project's)."""
    database = tmp_path / ".llamabot" / "message_log.db"
    database.parent.mkdir()
    for module in ("llamabot.recorder", "llamabot.prompt_manager"):
        found = pytest.importorskip(module, reason="llamabot is not installed")
        monkeypatch.setattr(found, "find_or_set_db_path", lambda db_path=None: database)
    return database


@pytest.fixture
def make_memory_store(make_spec: Callable[[str], dict[str, Any]]) -> Iterator[Callable[[str], Any]]:  # noqa: F811
    """Makes a fresh store of a backend (``"sqlite"``, ``"postgres-async"``, ...), the async ones as they
    are (a memory runs their calls itself); closes them after the test."""
    made: list[Any] = []

    def make(backend: str) -> Any:
        spec = make_spec(backend)
        asynchronous = spec.get("api") == "async"
        kind = spec["backend"]
        if kind == "memory":
            store: Any = AsyncInMemoryThreadStore() if asynchronous else InMemoryThreadStore()
        elif kind == "sqlite":
            store = AsyncSQLiteThreadStore(spec["path"]) if asynchronous else SQLiteThreadStore(spec["path"])
        else:
            store = (
                AsyncPostgresThreadStore(spec["dsn"]) if asynchronous else PostgresThreadStore(spec["dsn"])
            )
        made.append(store)
        return store

    yield make
    for store in made:
        if hasattr(store, "aclose"):
            asyncio.run(store.aclose())
        else:
            store.close()


@pytest.fixture(params=ALL)
def store(request: pytest.FixtureRequest, make_memory_store: Callable[[str], Any]) -> Any:
    """A fresh store of each backend in turn, in both flavours."""
    return make_memory_store(str(request.param))


@pytest.fixture(params=DURABLE)
def durable(request: pytest.FixtureRequest, make_spec: Callable[[str], dict[str, Any]]) -> dict[str, Any]:  # noqa: F811
    """The spec of a fresh store that outlives its process (SQLite, PostgreSQL), in both flavours."""
    return make_spec(str(request.param))
