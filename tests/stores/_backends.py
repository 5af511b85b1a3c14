"""How the store tests reach each backend: a spec (JSON-able, so a child process can open the same store).

A spec with ``"api": "async"`` opens the backend's async store (``AsyncSQLiteThreadStore``, ...) behind
``Blocking``, which runs each call on an event loop of its own: the one suite, written as sync calls,
then drives the async API, its errors and its concurrency (calls from several threads become coroutines
running at once on one loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import sqlite3
import sys
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

from messages import (
    AsyncInMemoryThreadStore,
    AsyncPostgresThreadStore,
    AsyncSQLiteThreadStore,
    AsyncThreadStore,
    InMemoryThreadStore,
    PostgresThreadStore,
    SQLiteThreadStore,
)

DSN_VARIABLE = "MESSAGES_TEST_POSTGRES_DSN"
UNAVAILABLE_VARIABLE = "MESSAGES_TEST_POSTGRES_UNAVAILABLE"
"""Set by scripts/dev.py test to what scripts/postgres.sh said when it could not start a server."""

Spec = dict[str, Any]


def open_store(spec: Spec) -> Any:
    """The store a spec names: ``{"backend": "sqlite", "path": ...}``, ``{"backend": "postgres",
    "dsn": ...}`` or ``{"backend": "memory"}``; with ``"api": "async"``, the async store behind
    ``Blocking``."""
    if spec.get("api") == "async":
        return Blocking(lambda: open_async_store(spec))
    if spec["backend"] == "memory":
        return InMemoryThreadStore()
    if spec["backend"] == "sqlite":
        return SQLiteThreadStore(spec["path"])
    if spec["backend"] == "postgres":
        return PostgresThreadStore(spec["dsn"])
    raise ValueError(f"unknown backend {spec['backend']!r}")


async def open_async_store(spec: Spec) -> AsyncThreadStore:
    """The async store a spec names, opened (connected, for PostgreSQL) as the sync one is at once."""
    if spec["backend"] == "memory":
        return AsyncInMemoryThreadStore()
    if spec["backend"] == "sqlite":
        return AsyncSQLiteThreadStore(spec["path"])
    if spec["backend"] == "postgres":
        store = AsyncPostgresThreadStore(spec["dsn"])
        await store.open()
        return store
    raise ValueError(f"unknown backend {spec['backend']!r}")


class Blocking:
    """An async store called from sync code: every coroutine method runs on this object's event loop, in a
    thread of its own, and its result (or error) comes back to the caller; ``close()`` is ``aclose()``.
    Calls from several threads run as concurrent coroutines on the one loop, as in an async bot."""

    def __init__(self, make: Callable[[], Coroutine[Any, Any, AsyncThreadStore]]) -> None:
        self._loop = asyncio.new_event_loop()
        thread = threading.Thread(target=_serve, args=(self._loop,), name="store-test-loop", daemon=True)
        thread.start()
        weakref.finalize(self, _stop, self._loop)
        try:
            self.inner = self._run(make())
        except BaseException:
            _stop(self._loop)
            thread.join()
            raise

    def _run(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.inner, name)
        if inspect.iscoroutinefunction(value):
            return lambda *args, **kwargs: self._run(value(*args, **kwargs))
        return value

    def __repr__(self) -> str:
        return f"Blocking({self.inner!r})"

    def close(self) -> None:
        self._run(self.inner.aclose())

    def __enter__(self) -> Blocking:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """A ``Blocking``'s loop thread: the loop until it is stopped, then closed, in this thread."""
    try:
        loop.run_forever()
    finally:
        loop.close()


def _stop(loop: asyncio.AbstractEventLoop) -> None:
    """Ask a ``Blocking``'s loop to stop, without waiting for it. This runs as a finalizer, in whatever
    thread the garbage collector ran in, maybe one that holds a lock the loop's thread needs to end (a
    store's worker in ``threading.enumerate()`` holds the lock every ending thread takes): joining the loop's
    thread here blocked that worker for the join's whole timeout (10 s, in a test of the floor run)."""
    with contextlib.suppress(RuntimeError):  # the loop is closed already
        loop.call_soon_threadsafe(loop.stop)


def is_async(store: object) -> bool:
    """Whether a test's store is an async one behind ``Blocking``."""
    return isinstance(store, Blocking)


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


def until(condition: Callable[[], object], what: str, timeout: float = 60) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``timeout`` seconds.

    What a test waits for here comes in milliseconds on an idle machine, but a busy one can keep a thread
    or a server process off the CPU for seconds: the bound is generous, so that only a hang fails."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout:g} s: {what}"
        time.sleep(0.01)


async def until_async(condition: Callable[[], object], what: str, timeout: float = 60) -> None:
    """``until`` from a coroutine: the event loop (and an async store's calls on it) runs meanwhile."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout:g} s: {what}"
        await asyncio.sleep(0.01)


_STORE_CODE = Path(inspect.getfile(SQLiteThreadStore)).parent
"""messages/stores/: where a store's calls run."""


def _in_store(frame: Any, name: str) -> bool:
    """Whether ``frame`` runs the store code's function ``name``."""
    code = frame.f_code
    return bool(code.co_name == name and Path(code.co_filename).parent == _STORE_CODE)


class Held:
    """A write lock that another connection holds (``write_lock_held``); calling it releases the lock."""

    def __init__(self, spec: Spec, release: Callable[[], object], backend_pid: int | None) -> None:
        self._spec = spec
        self._release = release
        self._backend_pid = backend_pid

    def __call__(self) -> None:
        self._release()

    def waited_for(self, method: str = "append") -> bool:
        """Whether a store's call waits for this lock now.

        PostgreSQL says so itself: a server process blocked by the holder's. SQLite shows no waiters, so
        there: a thread of a store's ``method`` (a sync store's, or the one an async store runs in its
        worker thread) that is starting its write transaction (its innermost frame the store's
        ``_transaction``, whose ``BEGIN IMMEDIATE`` cannot get past the lock held here), and so is a call
        under way, counted in flight; a thread still checking the call's arguments is not one yet (a
        ``close()`` then refuses it), and a read beside it goes on, and is not taken for the write.
        """
        if self._backend_pid is not None:
            query = "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))"
            return bool(raw_rows(self._spec, query, (self._backend_pid,))[0][0])
        for top in sys._current_frames().values():
            if not _in_store(top, "_transaction"):
                continue
            frame = top.f_back
            while frame is not None:
                if _in_store(frame, method):
                    return True
                frame = frame.f_back
        return False

    def wait_for_a_waiter(self, method: str = "append") -> None:
        """Until a store's ``method`` waits for this lock (``waited_for``), instead of sleeping for a guess
        at how long it takes to get there: a busy machine outlasts any guess."""
        until(lambda: self.waited_for(method), f"a {method} waits for the write lock")

    async def wait_for_a_waiter_async(self, method: str = "append") -> None:
        """``wait_for_a_waiter`` from a coroutine: the loop (where an async store's call runs) goes on."""
        await until_async(lambda: self.waited_for(method), f"a {method} waits for the write lock")


@contextlib.contextmanager
def write_lock_held(spec: Spec, thread_id: str) -> Iterator[Held]:
    """Another connection holds the thread's write lock (SQLite: the database's; PostgreSQL: the thread's
    row) until the ``Held`` given is called: the store's next write waits for it."""
    if spec["backend"] == "sqlite":
        conn = sqlite3.connect(spec["path"], isolation_level=None, check_same_thread=False)
        conn.execute("BEGIN IMMEDIATE")
        held = Held(spec, lambda: conn.execute("ROLLBACK"), None)
    else:
        import psycopg

        conn = psycopg.connect(spec["dsn"])
        conn.execute("SELECT 1 FROM thread_store_threads WHERE id = %s FOR UPDATE", (thread_id,))
        held = Held(spec, conn.rollback, conn.info.backend_pid)
    try:
        yield held
    finally:
        with contextlib.suppress(Exception):
            held()
        conn.close()
