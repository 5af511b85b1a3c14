"""The exceptions this package raises.

Every error is a ``MessagesError``; the leaves also subclass the builtin that generic handlers expect
(``ValueError``, ``KeyError``, ``TypeError``), so ``except ValueError`` keeps working. Each message says what
is wrong, where (message index, tool-call id, field) and what to do about it.

Validation problems inside a model are raised as plain ``ValueError`` from validators, so that Pydantic
turns them into a ``ValidationError`` that carries the field location (``[3].tool_calls.0.id``).

```text
MessagesError
  InvalidArgumentError (ValueError, TypeError)
  MessageTypeError (TypeError)
  ReplyError (ValueError)
  ToolArgumentsError (ValueError)
  ConversationError (ValueError)
    EmptyConversationError
    OrphanToolResultError
    UnansweredToolCallError
    DuplicateToolCallIdError
  ContextStateError (ValueError)
  ProfileError
    UnknownProfileError (KeyError)
    UnfixableError (ValueError)
  ConversionError (ValueError)
    UnsupportedContentError
  StoreError
    ThreadNotFoundError (KeyError)
    ThreadExistsError (ValueError)
    MessageExistsError (ValueError)
    InvalidThreadIdError (InvalidArgumentError)
    CorruptDataError (ValueError)
    ThreadKindError (ValueError)
    UnstorableMessageError (ValueError)
    StoreClosedError
    CheckpointConflictError (ValueError)
    CheckpointNotFoundError (KeyError)
    InvalidCheckpointError (ValueError)
    PositionError (IndexError)
    BackendError
      NotWrittenError
      MaybeWrittenError
  CompactionError
    SummarizerError (RuntimeError)
    SummaryInputTooLargeError (ValueError)
```

Each class's own entry below says when it is raised and what it carries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from messages.profiles._rule import Violation

__all__ = [
    "BackendError",
    "CheckpointConflictError",
    "CheckpointNotFoundError",
    "CompactionError",
    "ContextStateError",
    "ConversationError",
    "ConversionError",
    "CorruptDataError",
    "DuplicateToolCallIdError",
    "EmptyConversationError",
    "InvalidArgumentError",
    "InvalidCheckpointError",
    "InvalidThreadIdError",
    "MaybeWrittenError",
    "MessageExistsError",
    "MessageTypeError",
    "MessagesError",
    "NotWrittenError",
    "OrphanToolResultError",
    "PositionError",
    "ProfileError",
    "ReplyError",
    "StoreClosedError",
    "StoreError",
    "SummarizerError",
    "SummaryInputTooLargeError",
    "ThreadExistsError",
    "ThreadKindError",
    "ThreadNotFoundError",
    "ToolArgumentsError",
    "UnansweredToolCallError",
    "UnfixableError",
    "UnknownProfileError",
    "UnstorableMessageError",
    "UnsupportedContentError",
]


class MessagesError(Exception):
    """The base of every error this package raises."""


class InvalidArgumentError(MessagesError, ValueError, TypeError):
    """An argument that a store or a thread cannot take, refused before anything is done with it: ids or
    metadata that do not pair with the messages or are not JSON, a position that is not an int, a window
    that is not a window, a store of the other flavour (an async store given to ``append``), a flag that is
    not a bool. Both a ``ValueError`` and a ``TypeError``, so either generic handler catches it.

    Args:
        message: what is wrong, where, and what to give instead (``str(error)``).
        argument: the parameter's name (``"ids"``, ``"metadata"``, ``"store"``, ...).
        index: the message of the batch the value is about; ``None`` for the argument as a whole.
    """

    def __init__(self, message: str, *, argument: str, index: int | None = None) -> None:
        super().__init__(message)
        self.argument = argument
        """The name of the parameter that was given a value it cannot take."""
        self.index = index
        """The position, in the batch given, of the message the value is about; ``None`` for the whole
        argument."""


class MessageTypeError(MessagesError, TypeError):
    """An object that is not a ``Message`` where one was expected."""


class ReplyError(MessagesError, ValueError):
    """A provider reply that cannot be read as an ``AIMessage`` (no choices, a stream chunk, ...)."""


class ToolArgumentsError(MessagesError, ValueError):
    """Tool-call arguments that do not decode to a JSON object.

    ``raw`` holds the exact text the model produced, so a bot can echo it back in a tool result that asks
    the model to try again.

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        raw: the arguments exactly as the model produced them.
        tool_call_id: the id of the call, when known.
    """

    def __init__(self, message: str, *, raw: str, tool_call_id: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw
        """The arguments exactly as the model produced them."""
        self.tool_call_id = tool_call_id
        """The id of the tool call whose arguments failed, when known."""


class ConversationError(MessagesError, ValueError):
    """A conversation that breaks the tool-call protocol.

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        index: the position of the offending message; ``None`` for the whole list.
        tool_call_ids: the tool-call ids involved.
    """

    def __init__(
        self, message: str, *, index: int | None = None, tool_call_ids: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        self.index = index
        """Position of the offending message in the list, or ``None``."""
        self.tool_call_ids = tool_call_ids
        """The tool-call ids involved."""


class EmptyConversationError(ConversationError):
    """A conversation with no messages: every provider rejects an empty ``messages`` array."""


class OrphanToolResultError(ConversationError):
    """A tool result whose ``tool_call_id`` matches no call of the assistant turn it follows."""


class UnansweredToolCallError(ConversationError):
    """A tool call that has no tool result before the next non-tool message (or the end)."""


class DuplicateToolCallIdError(ConversationError):
    """A tool-call id used by two calls, or answered by two tool results."""


class ContextStateError(MessagesError, ValueError):
    """A state that ``load_state`` cannot load: another context class saved it, a newer version wrote it, or
    it is malformed. The context it was loaded into is left unchanged."""


class ProfileError(MessagesError):
    """A provider profile that cannot be resolved or applied."""


class UnknownProfileError(ProfileError, KeyError):
    """No profile is registered under the name asked for."""

    def __str__(self) -> str:
        # KeyError's str() wraps the message in quotes; the message is a sentence, not a key.
        return str(self.args[0]) if self.args else ""


class UnfixableError(ProfileError, ValueError):
    """What the provider cannot take and its profile cannot fix (content it has no form for, a tool name
    it rejects, ...), found before any request: nothing was sent.

    ``violations`` holds every finding (``messages.profiles.Violation``: the message index in the list
    given, the rule, the quirk row, what is wrong and what to do); ``str()`` lists them, one a line.
    ``dump_messages(..., on_unfixable="send")`` or ``Profile.apply(..., on_unfixable="send")`` sends such
    a list anyway.

    Args:
        profile: the name of the profile that refused (``"cohere"``).
        violations: every finding, in message order; the message lists them.
    """

    def __init__(self, profile: str, violations: tuple[Violation, ...]) -> None:
        count = len(violations)
        lines = "\n".join(f"  {v}" for v in violations)
        super().__init__(
            f"{count} problem{'s' if count != 1 else ''} the {profile} profile cannot fix, so nothing was "
            f'sent:\n{lines}\nchange these messages (each line says how), or pass on_unfixable="send" to '
            "send them as they are"
        )
        self.profile = profile
        """The name of the profile that refused (``"cohere"``, ``"bedrock:claude"``)."""
        self.violations = violations
        """Every finding, in message order."""

    @property
    def index(self) -> int | None:
        """The index of the first message with a finding (``None``: the conversation as a whole)."""
        return self.violations[0].index if self.violations else None


class StoreError(MessagesError):
    """A thread store operation that failed."""


class ThreadNotFoundError(StoreError, KeyError):
    """No thread with the given id exists in the store.

    Args:
        thread_id: the id asked for.
        message: the text, when not the default ("no thread with id ... in this store").
    """

    def __init__(self, thread_id: str, message: str | None = None) -> None:
        super().__init__(message or f"no thread with id {thread_id!r} in this store; create it first")
        self.thread_id = thread_id
        """The id that was asked for."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ThreadExistsError(StoreError, ValueError):
    """``create_thread`` was given an id that a thread of the store already has.

    Args:
        thread_id: the id that is taken.
    """

    def __init__(self, thread_id: str) -> None:
        super().__init__(
            f"a thread with id {thread_id!r} already exists in this store; load it with load_thread(), or "
            "create_thread() without an id to get a new one"
        )
        self.thread_id = thread_id
        """The id that is taken."""


class MessageExistsError(StoreError, ValueError):
    """``append`` of a message whose id the thread already holds (``skip_existing=True`` skips those).

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        thread_id: the thread appended to.
        message_id: the id it already holds.
    """

    def __init__(self, message: str, *, thread_id: str, message_id: str) -> None:
        super().__init__(message)
        self.thread_id = thread_id
        """The thread appended to."""
        self.message_id = message_id
        """The id it already holds."""


class InvalidThreadIdError(StoreError, InvalidArgumentError):
    """A thread id that is not a non-empty string (of at most 255 characters, valid Unicode, no NUL).

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        argument: the parameter's name (``"thread_id"`` unless given).
        index: the position in a batch of ids, for an argument that holds several; else ``None``.
    """

    def __init__(self, message: str, *, argument: str = "thread_id", index: int | None = None) -> None:
        super().__init__(message, argument=argument, index=index)


class CorruptDataError(StoreError, ValueError):
    """Stored data that no longer reads: invalid JSON, a dump that no longer validates, a missing position.

    Only the damaged part fails: the thread's other positions (``messages(thread_id, 0, position)``) and
    every other thread still read.

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        thread_id: the thread the damaged data belongs to.
        position: the damaged message's position; ``None`` for the thread's own record.
    """

    def __init__(self, message: str, *, thread_id: str, position: int | None) -> None:
        super().__init__(message)
        self.thread_id = thread_id
        """The thread the damaged data belongs to."""
        self.position = position
        """The position of the damaged message in its thread, or ``None`` for the thread's own record."""


class ThreadKindError(StoreError, ValueError):
    """A thread used as the other kind: messages appended to or read from a ``RemoteThread`` (the service
    keeps its history), or a saved thread replaced by ``save_thread`` with a thread of the other kind (which
    would lose a remote thread's ``response_id`` and pending messages, or strand a local thread's messages).

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        thread_id: the thread's id.
        kind: the kind the store holds it as: ``"local"`` or ``"remote"``.
    """

    def __init__(self, message: str, *, thread_id: str, kind: str) -> None:
        super().__init__(message)
        self.thread_id = thread_id
        """The thread's id."""
        self.kind = kind
        """The kind the store holds the thread as: ``"local"`` or ``"remote"``."""


class UnstorableMessageError(StoreError, ValueError):
    """A message whose dump cannot be stored: text that is not valid Unicode (a lone surrogate such as
    ``"\\ud800"``, which UTF-8, JSON text and every database refuse).

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        index: the message's position in the batch given to ``append``.
        field: where the text sits in the message's dump (``tool_calls[0].function.arguments``).
    """

    def __init__(self, message: str, *, index: int, field: str) -> None:
        super().__init__(message)
        self.index = index
        """Position of the message in the batch given to ``append``."""
        self.field = field
        """Where the text sits in the message's dump."""


class StoreClosedError(StoreError):
    """An operation on a store after its ``close()``: open a new store to go on.

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        operation: the store method called (``"append"``).
        thread_id: the thread it was called on; ``None`` for a method that takes none.
    """

    def __init__(self, message: str, *, operation: str, thread_id: str | None) -> None:
        super().__init__(message)
        self.operation = operation
        """The store method that was called (``"append"``, ``"messages"``, ...)."""
        self.thread_id = thread_id
        """The thread it was called on, or ``None`` for a method that takes none (``threads``)."""


class CheckpointConflictError(StoreError, ValueError):
    """``add_checkpoint`` on a base that is no longer the thread's newest checkpoint: another compactor
    stored its checkpoint first (compare and set, under the thread's write lock). Nothing was written;
    ``winner`` is the checkpoint that is now the newest, whose summary every read uses.

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        thread_id: the thread.
        base: the base the refused checkpoint was built on; ``None`` for none.
        winner: the thread's newest checkpoint now (a ``Checkpoint``), or ``None``.
    """

    # ``winner`` is a ``messages.stores.Checkpoint``; typed loosely so that this module, which every layer
    # imports, imports none of them.
    def __init__(self, message: str, *, thread_id: str, base: str | None, winner: Any) -> None:
        super().__init__(message)
        self.thread_id = thread_id
        """The thread."""
        self.base = base
        """The base the refused checkpoint was built on (``None``: the thread had no checkpoint)."""
        self.winner = winner
        """The thread's newest checkpoint now, a ``Checkpoint`` (``None`` when it has none: the base was
        deleted)."""


class CheckpointNotFoundError(StoreError, KeyError):
    """No checkpoint with the given id in the thread.

    Args:
        thread_id: the thread.
        checkpoint_id: the id asked for.
    """

    def __init__(self, thread_id: str, checkpoint_id: str) -> None:
        super().__init__(
            f"thread {thread_id!r} has no checkpoint with id {checkpoint_id!r}; checkpoints(thread_id) lists "
            "those it has"
        )
        self.thread_id = thread_id
        """The thread."""
        self.checkpoint_id = checkpoint_id
        """The id that was asked for."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class InvalidCheckpointError(StoreError, ValueError):
    """A checkpoint that cannot stand in the thread: its position is outside the thread or not after its
    base's, it would cut a tool call from its result, or its summary is a tool result or makes tool calls.
    Nothing was written.

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        thread_id: the thread.
    """

    def __init__(self, message: str, *, thread_id: str) -> None:
        super().__init__(message)
        self.thread_id = thread_id
        """The thread."""


class PositionError(StoreError, IndexError):
    """A position past the end of the thread: a checkpoint up to it, or a token count saved for a message
    the thread does not hold. Nothing was written.

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        thread_id: the thread.
        position: the position asked for.
    """

    def __init__(self, message: str, *, thread_id: str, position: int) -> None:
        super().__init__(message)
        self.thread_id = thread_id
        """The thread."""
        self.position = position
        """The position asked for."""


class BackendError(StoreError):
    """The database behind a store, its file, or the connection to it failed an operation.

    The driver's error is chained as ``__cause__``. Never raised itself: it is a ``NotWrittenError`` or a
    ``MaybeWrittenError``, which tell whether the operation's writes may be in the store.

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        operation: the store method that failed (``"open"`` for the constructor).
        thread_id: the thread it was called on; ``None`` for a method that takes none.
    """

    def __init__(self, message: str, *, operation: str, thread_id: str | None) -> None:
        super().__init__(message)
        self.operation = operation
        """The store method that failed (``"append"``, ``"messages"``, ``"save_thread"``, ..., and
        ``"open"`` for the store's constructor)."""
        self.thread_id = thread_id
        """The thread it was called on, or ``None`` for a method that takes none (``threads``, ``open``)."""


class NotWrittenError(BackendError):
    """An operation that failed with nothing of it in the store: a read, or a write that failed before it
    was committed (no connection to the server, a write error or a full disk before the commit record, a
    statement the database refused). Retrying it as it is neither loses nor doubles anything."""


class MaybeWrittenError(BackendError):
    """A write that may have been committed although it raised: the connection was lost after the
    statement was sent (the commit, if it happened, was never acknowledged), or the commit itself failed in
    a way that may have left it on disk. An append is all or nothing, so its messages are in the thread
    whole or not at all: read the thread's end back before appending them again."""


class ConversionError(MessagesError, ValueError):
    """A conversion to or from another library's messages (``messages.convert``) that would lose something.

    Every converter keeps everything or raises this.

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        index: the position of the message (or item) in the list being converted; ``None`` for the list.
        part: what it cannot carry: a field name (``"name"``, ``"thinking_blocks"``), or the position of a
            content part in that message; ``None``: all of it.
    """

    def __init__(self, message: str, *, index: int | None, part: int | str | None = None) -> None:
        super().__init__(message)
        self.index = index
        """Position of the offending message or item in the list being converted (``None``: the list)."""
        self.part = part
        """What of it cannot be carried: a field name, or a content part's position; ``None``: all of it."""


class UnsupportedContentError(ConversionError):
    """Content that the target API has no form for (audio in Responses API input, for example).

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        index: the position of the message in the list being converted.
        part: the position of the content part in that message, or ``None``.
    """

    def __init__(self, message: str, *, index: int, part: int | None = None) -> None:
        super().__init__(message, index=index, part=part)


class CompactionError(MessagesError):
    """Compaction could not write a checkpoint (``messages.compaction``); nothing was written, and the
    thread reads as it did before.

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        thread_id: the thread being compacted.
    """

    def __init__(self, message: str, *, thread_id: str) -> None:
        super().__init__(message)
        self.thread_id = thread_id
        """The thread being compacted."""


class SummarizerError(CompactionError, RuntimeError):
    """The summarizer failed: it raised (chained as ``__cause__``), timed out, returned no text, or returned
    a summary longer than the span it was to replace. ``reason`` says which: ``"raised"``, ``"timeout"``,
    ``"empty"`` or ``"too_long"``.

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        thread_id: the thread being compacted.
        reason: ``"raised"``, ``"timeout"``, ``"empty"`` or ``"too_long"``.
    """

    def __init__(self, message: str, *, thread_id: str, reason: str) -> None:
        super().__init__(message, thread_id=thread_id)
        self.reason = reason
        """``"raised"``, ``"timeout"``, ``"empty"`` or ``"too_long"``."""


class SummaryInputTooLargeError(CompactionError, ValueError):
    """One whole exchange (a unit: a message with the tool results that answer it) is larger than the
    summarizer's input budget: spans are chained over several checkpoints at exchange boundaries, never
    truncated, so this one cannot be summarized. Raise ``max_summary_input_tokens``.

    Args:
        message: what is wrong, where, and what to do (``str(error)``).
        thread_id: the thread being compacted.
        position: where the exchange starts in the thread.
        tokens: its size, with the previous summary and the prompt, as counted.
    """

    def __init__(self, message: str, *, thread_id: str, position: int, tokens: int) -> None:
        super().__init__(message, thread_id=thread_id)
        self.position = position
        """Where the exchange starts in the thread."""
        self.tokens = tokens
        """Its size, with the previous summary and the prompt, as counted."""
