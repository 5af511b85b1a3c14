"""Conversions between this package's messages and other libraries' message types, for whole conversations.

=============================================  =====================================================
functions                                      the other side
=============================================  =====================================================
``from_langchain``, ``to_langchain``           LangChain ``BaseMessage`` lists (extra ``[langchain]``)
``from_pydantic_ai``, ``to_pydantic_ai``       pydantic-ai ``ModelMessage`` lists (``[pydantic-ai]``)
``from_autogen``, ``to_autogen``               AutoGen ``LLMMessage`` lists (``[autogen]``)
``from_llamabot``, ``to_llamabot``             llamabot's messages, with what llamabot keeps beside a
                                               message in an envelope (``[llamabot]``)
``from_agent_framework``, ``to_agent_framework``  Agent Framework ``Message`` lists, with what Agent
                                               Framework keeps beside a message in an envelope
                                               (``[agent-framework]``)
``from_responses_items``, ``to_responses_items``  OpenAI Responses API input items (plain dicts); the
                                               converter ``RemoteThread`` sends its messages through
=============================================  =====================================================

Each converter keeps everything or raises ``ConversionError`` (a ``MessagesError`` and a ``ValueError``)
naming the message index and the part it cannot carry: nothing is dropped silently. Within what the other
side can hold, ``from_x(to_x(conversation)) == conversation``. The other libraries are imported inside the
functions that need them, never by ``import messages``; the LangChain, pydantic-ai, AutoGen, Agent
Framework and llamabot modules themselves load on first use (``import messages`` reaches this package for
the Responses converter only).
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from messages.convert.responses import from_responses_items, to_responses_items
from messages.errors import ConversionError

if TYPE_CHECKING:
    from messages.convert.agent_framework import from_agent_framework, to_agent_framework
    from messages.convert.autogen import from_autogen, to_autogen
    from messages.convert.langchain import from_langchain, to_langchain
    from messages.convert.llamabot import from_llamabot, to_llamabot
    from messages.convert.pydantic_ai import from_pydantic_ai, to_pydantic_ai

__all__ = [
    "ConversionError",
    "from_agent_framework",
    "from_autogen",
    "from_langchain",
    "from_llamabot",
    "from_pydantic_ai",
    "from_responses_items",
    "to_agent_framework",
    "to_autogen",
    "to_langchain",
    "to_llamabot",
    "to_pydantic_ai",
    "to_responses_items",
]

_LAZY = {
    "from_agent_framework": "agent_framework",
    "to_agent_framework": "agent_framework",
    "from_autogen": "autogen",
    "to_autogen": "autogen",
    "from_langchain": "langchain",
    "to_langchain": "langchain",
    "from_llamabot": "llamabot",
    "to_llamabot": "llamabot",
    "from_pydantic_ai": "pydantic_ai",
    "to_pydantic_ai": "pydantic_ai",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(f"messages.convert.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'messages.convert' has no attribute {name!r}")


def __dir__() -> list[str]:
    """Every name of the module, the converters that load on first use included."""
    return sorted({*globals(), *__all__})
