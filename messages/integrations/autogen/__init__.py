"""This package inside AutoGen (``pip install 'llm-messages[autogen]'``): its windows as AutoGen model
contexts, and a model client that sends through litellm with the provider profiles.

* ``UnboundedChatCompletionContext``, ``BufferedChatCompletionContext``, ``HeadAndTailChatCompletionContext``
  and ``TokenLimitedChatCompletionContext``: AutoGen ``ChatCompletionContext`` components with AutoGen's
  names, arguments, configuration and state format, choosing their window by the rules of
  ``messages.context``: no tool call is ever cut from its result
* ``CompactingChatCompletionContext``: a model context over a thread of this package's stores, compacted into
  its summary checkpoints (``messages.compaction``)
* ``LiteLLMChatCompletionClient``: an AutoGen ``ChatCompletionClient`` on ``litellm.acompletion``, every
  request passed through the provider's profile

Use them where AutoGen takes its own: ``AssistantAgent(..., model_client=LiteLLMChatCompletionClient(
"gemini/gemini-2.5-flash"), model_context=BufferedChatCompletionContext(buffer_size=20))``. The guide's
page docs/guide/autogen.md says why, and ``examples/autogen_agent.py`` runs one offline.

Importing this subpackage imports autogen-core (and raises ``ImportError`` with the pip command when it is
missing); ``import messages`` never does. litellm is imported on first use.
"""

try:
    import autogen_core  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
    raise ImportError(
        "messages.integrations.autogen needs AutoGen's core package: pip install 'llm-messages[autogen]'"
    ) from exc

from messages.integrations.autogen._client import (
    LiteLLMChatCompletionClient,
    LiteLLMChatCompletionClientConfig,
)
from messages.integrations.autogen._compacting import (
    CompactingChatCompletionContext,
    CompactingChatCompletionContextConfig,
)
from messages.integrations.autogen._contexts import (
    BufferedChatCompletionContext,
    BufferedChatCompletionContextConfig,
    HeadAndTailChatCompletionContext,
    HeadAndTailChatCompletionContextConfig,
    TokenLimitedChatCompletionContext,
    TokenLimitedChatCompletionContextConfig,
    UnboundedChatCompletionContext,
    UnboundedChatCompletionContextConfig,
    skipped_messages_note,
)

__all__ = [
    "BufferedChatCompletionContext",
    "BufferedChatCompletionContextConfig",
    "CompactingChatCompletionContext",
    "CompactingChatCompletionContextConfig",
    "HeadAndTailChatCompletionContext",
    "HeadAndTailChatCompletionContextConfig",
    "LiteLLMChatCompletionClient",
    "LiteLLMChatCompletionClientConfig",
    "TokenLimitedChatCompletionContext",
    "TokenLimitedChatCompletionContextConfig",
    "UnboundedChatCompletionContext",
    "UnboundedChatCompletionContextConfig",
    "skipped_messages_note",
]
