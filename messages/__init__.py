"""Typed LLM chat messages that dump straight into ``litellm.completion``.

Build ``SystemMessage``, ``UserMessage``, ``AIMessage`` and ``ToolMessage`` objects, pass
``dump_messages(conversation)`` (or ``[m.model_dump() for m in conversation]``) as ``messages=``, and read
the reply back with ``AIMessage.from_litellm(response)``. litellm itself is imported only where it is
called, never by ``import messages``.
"""

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
from messages.profiles import Profile, Violation, get_profile, register_profile
from messages.protocol import protocol_errors, repair_conversation, validate_conversation

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
