"""This package inside Agent Framework (``pip install 'llm-messages[agent-framework]'``): the package's
thread stores as an agent's history.

* ``ThreadStoreHistoryProvider``: an Agent Framework ``HistoryProvider`` over any of this package's stores,
  sync or async: one thread per session, every content Agent Framework records (what no message of this
  package holds kept in the store's envelope), the session's state kept with the thread for ``load_session``,
  a replayed turn stored once, and optionally a window of the history instead of all of it

Use it where Agent Framework takes its own: ``Agent(client=..., context_providers=[
ThreadStoreHistoryProvider(SQLiteThreadStore("history.db"))])``. The guide's page
docs/guide/agent-framework.md says why, and ``examples/agent_framework_agent.py`` runs one offline.

Importing this subpackage imports agent-framework-core (and raises ``ImportError`` with the pip command when
it is missing); ``import messages`` never does.
"""

try:
    import agent_framework  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
    raise ImportError(
        "messages.integrations.agent_framework needs Agent Framework's core package: pip install "
        "'llm-messages[agent-framework]'"
    ) from exc

from messages.integrations.agent_framework._history import ThreadStoreHistoryProvider

__all__ = ["ThreadStoreHistoryProvider"]
