"""This package inside llamabot (``pip install 'llm-messages[llamabot]'``): llamabot's issue #275 fixed
from outside, its bots on the package's messages, stores, windows and compaction.

* ``ThreadStoreChatMemory``: llamabot's chat-memory protocol (``append``, ``retrieve``, ``reset``) over a
  thread of any of the package's stores, sync or async: a window that never starts at a tool result, summary
  checkpoints, a thread that goes on in another process
* ``SimpleBot`` and ``AsyncSimpleBot``: llamabot's ``SimpleBot`` and ``AsyncSimpleBot``, sending the
  conversation as ``dump_messages(..., model=...)`` dumps it (tool calls and their ids, the provider's
  profile), with llamabot's spans and message log
* ``DecideNode``: the decide node of llamabot's ``AgentBot`` and ``AsyncAgentBot``: the agent's conversation
  kept as the tool-call protocol has it, in a window, in a store

Use them where llamabot takes its own: ``SimpleBot(..., memory=ThreadStoreChatMemory(store, "chat-1"))``,
``ToolBot(..., chat_memory=ThreadStoreChatMemory(store))``, ``AgentBot(tools=[...],
decide_node=DecideNode(ThreadStoreChatMemory(store, "agent-1"), model_name=...))``. The guide's page
docs/guide/llamabot.md says why, and what llamabot does wrong on its own side; ``examples/llamabot_agent.py``
runs one offline. ``messages.convert.llamabot`` converts llamabot's messages.

Importing this subpackage imports llamabot (and raises ``ImportError`` with the pip command when it is
missing); ``import messages`` never does. litellm is imported on first use.
"""

try:
    import llamabot  # noqa: F401
    import pocketflow  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is installed where these run
    raise ImportError(
        "messages.integrations.llamabot needs llamabot and PocketFlow: pip install 'llm-messages[llamabot]'"
    ) from exc

from messages.integrations.llamabot._bots import AsyncSimpleBot, SimpleBot
from messages.integrations.llamabot._decide import DecideNode
from messages.integrations.llamabot._memory import ThreadStoreChatMemory

__all__ = ["AsyncSimpleBot", "DecideNode", "SimpleBot", "ThreadStoreChatMemory"]
