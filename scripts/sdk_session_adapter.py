"""A pytest plugin for the OpenAI Agents SDK's own test suite: every test module's ``SQLiteSession`` becomes
``AdaptedSession``, a ``ThreadStoreSession`` over a store of this package that takes ``SQLiteSession``'s
arguments. ``scripts/sdk_session_tests.py`` runs the SDK's session tests with it (``-p sdk_session_adapter``);
``MESSAGES_ADAPTER_STORE`` (``sync``, the default, or ``async``) picks ``SQLiteThreadStore`` or
``AsyncSQLiteThreadStore``.

A session made without a file (``SQLiteSession``'s ``":memory:"``, a database of its own) gets a file of its
own in a temporary folder; sessions made on one file share it, as ``SQLiteSession``'s do.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from agents import SessionSettings

from messages import AsyncSQLiteThreadStore, SQLiteThreadStore
from messages.integrations.openai_agents import ThreadStoreSession

_FOLDER = tempfile.mkdtemp(prefix="sdk-session-adapter-")


class AdaptedSession(ThreadStoreSession):
    """``ThreadStoreSession`` made with ``SQLiteSession``'s arguments (the table names are not used)."""

    def __init__(
        self,
        session_id: str,
        db_path: str | Path = ":memory:",
        sessions_table: str = "agent_sessions",
        messages_table: str = "agent_messages",
        session_settings: SessionSettings | Mapping[str, Any] | None = None,
    ) -> None:
        path = Path(_FOLDER, f"{uuid.uuid4().hex}.db") if str(db_path) == ":memory:" else Path(db_path)
        flavour = os.environ.get("MESSAGES_ADAPTER_STORE", "sync")
        store = AsyncSQLiteThreadStore(path) if flavour == "async" else SQLiteThreadStore(path)
        super().__init__(session_id, store, session_settings=session_settings)
        self.db_path = db_path
        self.sessions_table = sessions_table
        self.messages_table = messages_table

    def close(self) -> None:
        """``SQLiteSession.close``: the store is closed (the session made it, so it is the session's)."""
        store = self.store
        if isinstance(store, SQLiteThreadStore):
            store.close()
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(store.aclose())  # type: ignore[union-attr]
            return
        # Called from a coroutine (the SDK's tests close sessions inside async tests), where aclose() cannot
        # be awaited: close the sync store the async one runs in its worker thread.
        store._sync.close()  # type: ignore[union-attr]


@pytest.fixture(autouse=True)  # type: ignore[untyped-decorator]
def _sqlite_session_is_ours(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if hasattr(request.module, "SQLiteSession"):
        monkeypatch.setattr(request.module, "SQLiteSession", AdaptedSession)
