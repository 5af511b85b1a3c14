"""Typed LLM chat messages that dump straight into ``litellm.completion``.

Build ``SystemMessage``, ``UserMessage``, ``AIMessage`` and ``ToolMessage`` objects, pass
``dump_messages(conversation)`` (or ``[m.model_dump() for m in conversation]``) as ``messages=``, and read
the reply back with ``AIMessage.from_litellm(response)``. litellm itself is imported only where it is
called, never by ``import messages``.
"""

from typing import TYPE_CHECKING, Any

from messages._io import dump_messages, load_messages
from messages.errors import (
    ConversationError,
    DuplicateToolCallIdError,
    EmptyConversationError,
    MessagesError,
    MessageTypeError,
    OrphanToolResultError,
    ProfileError,
    ReplyError,
    StoreError,
    ThreadNotFoundError,
    ToolArgumentsError,
    UnansweredToolCallError,
    UnknownProfileError,
)
from messages.models import AIMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages.parts import AudioPart, FilePart, ImagePart, TextPart
from messages.protocol import protocol_errors, repair_conversation, validate_conversation

if TYPE_CHECKING:
    from messages.profiles import Profile, Violation, get_profile, register_profile

__version__ = "0.1.0.dev0"

__all__ = [
    "AIMessage",
    "AudioPart",
    "ConversationError",
    "DuplicateToolCallIdError",
    "EmptyConversationError",
    "FilePart",
    "ImagePart",
    "Message",
    "MessageTypeError",
    "MessagesError",
    "OrphanToolResultError",
    "Profile",
    "ProfileError",
    "ReplyError",
    "StoreError",
    "SystemMessage",
    "TextPart",
    "ThreadNotFoundError",
    "ToolArgumentsError",
    "ToolCall",
    "ToolMessage",
    "UnansweredToolCallError",
    "UnknownProfileError",
    "UserMessage",
    "Violation",
    "dump_messages",
    "get_profile",
    "load_messages",
    "protocol_errors",
    "register_profile",
    "repair_conversation",
    "validate_conversation",
]

# The provider profiles load on first use (`dump_messages(model=...)` or one of these names), not at
# `import messages`: they are a good share of the import cost, and many programs never need them.
_LAZY = {"Profile", "Violation", "get_profile", "register_profile"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from messages import profiles

        value = getattr(profiles, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'messages' has no attribute {name!r}")
