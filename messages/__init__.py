"""Typed LLM chat messages that dump straight into ``litellm.completion``.

Build ``SystemMessage``, ``UserMessage``, ``AIMessage`` and ``ToolMessage`` objects, pass
``dump_messages(conversation)`` (or ``[m.model_dump() for m in conversation]``) as ``messages=``, and read
the reply back with ``AIMessage.from_litellm(response)``. litellm itself is imported only where it is
called, never by ``import messages``.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from messages._io import dump_messages, load_messages
from messages.convert.responses import from_responses_items, from_responses_output, to_responses_items
from messages.errors import (
    BackendError,
    CheckpointConflictError,
    CheckpointNotFoundError,
    CompactionError,
    ContextStateError,
    ConversationError,
    ConversionError,
    CorruptDataError,
    DuplicateToolCallIdError,
    EmptyConversationError,
    InvalidArgumentError,
    InvalidCheckpointError,
    InvalidThreadIdError,
    MaybeWrittenError,
    MessageExistsError,
    MessagesError,
    MessageTypeError,
    NotWrittenError,
    OrphanToolResultError,
    PositionError,
    ProfileError,
    ReplyError,
    StoreClosedError,
    StoreError,
    SummarizerError,
    SummaryInputTooLargeError,
    ThreadExistsError,
    ThreadKindError,
    ThreadNotFoundError,
    ToolArgumentsError,
    UnansweredToolCallError,
    UnfixableError,
    UnknownProfileError,
    UnstorableMessageError,
    UnsupportedContentError,
)
from messages.models import (
    AIMessage,
    AudioReference,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from messages.parts import AudioPart, CacheControl, FilePart, ImagePart, TextPart, VideoPart
from messages.protocol import (
    MISSING_RESULT,
    is_synthesized_result,
    protocol_errors,
    repair_conversation,
    validate_conversation,
)
from messages.streaming import StreamAccumulator, StreamDelta
from messages.threads import ContextWindow, LocalThread, RemoteThread, Thread, parse_thread

if TYPE_CHECKING:
    from messages.profiles import Profile, Violation, get_profile, register_profile
    from messages.stores import (
        AsyncInMemoryThreadStore,
        AsyncPostgresThreadStore,
        AsyncSQLiteThreadStore,
        AsyncThreadStore,
        Checkpoint,
        InMemoryThreadStore,
        MessageRecord,
        PostgresThreadStore,
        Provenance,
        SQLiteThreadStore,
        ThreadInfo,
        ThreadStore,
    )

__version__ = "0.1.0.dev0"

__all__ = [
    "MISSING_RESULT",
    "AIMessage",
    "AsyncInMemoryThreadStore",
    "AsyncPostgresThreadStore",
    "AsyncSQLiteThreadStore",
    "AsyncThreadStore",
    "AudioPart",
    "AudioReference",
    "BackendError",
    "CacheControl",
    "Checkpoint",
    "CheckpointConflictError",
    "CheckpointNotFoundError",
    "CompactionError",
    "ContextStateError",
    "ContextWindow",
    "ConversationError",
    "ConversionError",
    "CorruptDataError",
    "DuplicateToolCallIdError",
    "EmptyConversationError",
    "FilePart",
    "ImagePart",
    "InMemoryThreadStore",
    "InvalidArgumentError",
    "InvalidCheckpointError",
    "InvalidThreadIdError",
    "LocalThread",
    "MaybeWrittenError",
    "Message",
    "MessageExistsError",
    "MessageRecord",
    "MessageTypeError",
    "MessagesError",
    "NotWrittenError",
    "OrphanToolResultError",
    "PositionError",
    "PostgresThreadStore",
    "Profile",
    "ProfileError",
    "Provenance",
    "RemoteThread",
    "ReplyError",
    "SQLiteThreadStore",
    "StoreClosedError",
    "StoreError",
    "StreamAccumulator",
    "StreamDelta",
    "SummarizerError",
    "SummaryInputTooLargeError",
    "SystemMessage",
    "TextPart",
    "Thread",
    "ThreadExistsError",
    "ThreadInfo",
    "ThreadKindError",
    "ThreadNotFoundError",
    "ThreadStore",
    "ToolArgumentsError",
    "ToolCall",
    "ToolMessage",
    "UnansweredToolCallError",
    "UnfixableError",
    "UnknownProfileError",
    "UnstorableMessageError",
    "UnsupportedContentError",
    "UserMessage",
    "VideoPart",
    "Violation",
    "dump_messages",
    "from_responses_items",
    "from_responses_output",
    "get_profile",
    "is_synthesized_result",
    "load_messages",
    "parse_thread",
    "protocol_errors",
    "register_profile",
    "repair_conversation",
    "to_responses_items",
    "validate_conversation",
]

# The provider profiles and the thread stores load on first use (`dump_messages(model=...)`, one of these
# names), not at `import messages`: they are a good share of the import cost, and many programs never need
# them (`python -m benchmarks core` times the import).
_LAZY = {
    "Profile": "profiles",
    "Violation": "profiles",
    "get_profile": "profiles",
    "register_profile": "profiles",
    "AsyncInMemoryThreadStore": "stores",
    "AsyncPostgresThreadStore": "stores",
    "AsyncSQLiteThreadStore": "stores",
    "AsyncThreadStore": "stores",
    "Checkpoint": "stores",
    "InMemoryThreadStore": "stores",
    "MessageRecord": "stores",
    "PostgresThreadStore": "stores",
    "Provenance": "stores",
    "SQLiteThreadStore": "stores",
    "ThreadInfo": "stores",
    "ThreadStore": "stores",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(import_module(f"messages.{module}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'messages' has no attribute {name!r}")


def __dir__() -> list[str]:
    """Every name of the package, the ones that load on first use included."""
    return sorted({*globals(), *__all__})
