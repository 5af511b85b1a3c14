"""This package inside the OpenAI Agents SDK (``pip install 'llm-messages[openai-agents]'``): the package's
thread stores as an agent's session.

* ``ThreadStoreSession``: an Agents SDK ``Session`` over any of this package's stores, sync or async: one
  thread per session, every item kept exactly (one stored message each, typed where the package has a form), a
  ``limit`` that never cuts an exchange, an atomic ``pop_item``, and compaction into summary checkpoints for
  every provider
* ``ITEM_KEY``: the key of a stored message's envelope metadata under which its SDK item is kept

Use it where the SDK takes its own sessions: ``Runner.run(agent, "Hi", session=ThreadStoreSession(
"user-42", SQLiteThreadStore("agents.db")))``. The guide's page docs/guide/openai-agents.md says why, and
``examples/openai_agents_session.py`` runs one offline.

Importing this subpackage imports the SDK (and raises ``ImportError`` with the pip command when it is
missing); ``import messages`` never does.
"""

try:
    import agents  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
    raise ImportError(
        "messages.integrations.openai_agents needs the OpenAI Agents SDK: pip install "
        "'llm-messages[openai-agents]'"
    ) from exc

from messages.integrations.openai_agents._session import ITEM_KEY, ThreadStoreSession

__all__ = ["ITEM_KEY", "ThreadStoreSession"]
