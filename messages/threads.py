"""Threads: a conversation's identity and state, kept apart from where its messages live.

Two explicit types, never one class in two modes (Agent Framework's ADR on Python agent threads, option 2:
separate local and remote thread classes, state-only threads, a thread store for persistence):

* ``LocalThread``: the messages live with us, in a ``ThreadStore``, under the thread's ``id``. The thread
  value holds only state. ``thread.append(store, messages)`` adds to it; ``thread.read(store, window)``
  reads the conversation through any context window (anything with ``add_message``, ``get_messages`` and
  ``clear``, such as the windows of ``messages.context``).
* ``RemoteThread``: the service keeps the history (the OpenAI Responses API, ``store=True``). We keep the id
  of its last response (``response_id``, sent back as ``previous_response_id``), the ids of the function
  calls that response is waiting on (``open_calls``), and the messages added since (``pending``), which
  ``request()`` turns into Responses API input items; ``receive(response)`` reads the reply and moves on.

Both carry ``context_state``: JSON-able state for context providers, by provider name (a memory's user id,
a running summary, ...). Both are frozen values: what changes them returns a new thread. Both serialize to
JSON with a ``kind`` discriminator (``"local"`` or ``"remote"``), so ``parse_thread`` gives back the right
type, and every ``ThreadStore`` keeps them with ``save_thread`` / ``load_thread``.
"""

from __future__ import annotations

import inspect
import math
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Annotated, Any, Literal, Protocol, Self, TypeVar, runtime_checkable

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

from messages._window import ReadPlan, check_flag, read_async, read_sync
from messages.convert.responses import from_responses_output, response_id, to_responses_items
from messages.errors import (
    DuplicateToolCallIdError,
    EmptyConversationError,
    InvalidArgumentError,
    MessageTypeError,
    OrphanToolResultError,
    UnansweredToolCallError,
)
from messages.models import AIMessage, Message, SystemMessage, ToolMessage, UserMessage
from messages.protocol import check_types, unique_call_id

__all__ = [
    "AsyncMessageStore",
    "ContextWindow",
    "LocalThread",
    "MessageStore",
    "RemoteThread",
    "Thread",
    "as_message_list",
    "new_thread_id",
    "parse_thread",
]

_MESSAGE_TYPES = (SystemMessage, UserMessage, AIMessage, ToolMessage)


def new_thread_id() -> str:
    """A fresh random thread id (32 hex digits).

    Returns:
        A new id, such as ``LocalThread`` gives itself when none is given.

    Raises nothing.
    """
    return uuid.uuid4().hex


def as_message_list(messages: Message | Iterable[Message]) -> list[Message]:
    """One message, or an iterable of them, as a list; ``MessageTypeError`` names the first non-message.

    Args:
        messages: one message, or an iterable of messages (a list, a tuple, a generator...).

    Returns:
        The messages, in order, in a new list.

    Raises:
        MessageTypeError: an item is not a ``Message`` (a dict: read it with ``load_messages``).
    """
    if isinstance(messages, _MESSAGE_TYPES):
        return [messages]
    if isinstance(messages, (str, bytes, Mapping)):
        raise MessageTypeError(
            f"expected a Message or an iterable of Messages, got a {type(messages).__name__}; read dicts "
            "and JSON with load_messages() first"
        )
    if not isinstance(messages, Iterable):
        raise MessageTypeError(
            f"expected a Message or an iterable of Messages, got a {type(messages).__name__}"
        )
    listed = list(messages)
    check_types(listed)
    return listed


@runtime_checkable
class ContextWindow(Protocol):
    """What a local thread reads through: a window over a conversation (``messages.context``)."""

    def add_message(self, message: Message) -> None:
        """Add the next message of the conversation.

        Args:
            message: the message that comes next.

        Raises:
            MessageTypeError: ``message`` is not a ``Message``.
        """
        ...

    def get_messages(self) -> list[Message]:
        """The messages the window keeps, to send to the model.

        Returns:
            The window, in order.

        Raises nothing.
        """
        ...

    def clear(self) -> None:
        """Forget every message.

        Raises nothing.
        """
        ...


class MessageStore(Protocol):
    """What a local thread needs of its store: every ``ThreadStore`` (``messages.stores``) is one. A store
    that also has ``roles`` and ``thread_info`` (every ``ThreadStore``) serves window-aware reads."""

    def append(self, thread_id: str, messages: Message | Iterable[Message]) -> range:
        """Add one message or several, atomically, at the end of the thread; the positions they got.

        Args:
            thread_id: the thread's id in the store.
            messages: one message or several, in order.

        Returns:
            The positions the messages got in the thread.

        Raises what the store raises (``ThreadStore.append``).
        """
        ...

    def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """The thread's messages in order; ``start``/``stop`` slice by position as a list slice does.

        Args:
            thread_id: the thread's id in the store.
            start: the position of the first message to read.
            stop: the position to stop before (``None``: the end).

        Returns:
            The messages from ``start`` to ``stop``, in order.

        Raises what the store raises (``ThreadStore.messages``).
        """
        ...


class AsyncMessageStore(Protocol):
    """What a local thread needs of an async store: every ``AsyncThreadStore`` is one."""

    async def append(self, thread_id: str, messages: Message | Iterable[Message]) -> range:
        """Add one message or several, atomically, at the end of the thread; the positions they got.

        Args:
            thread_id: the id of the thread to add to.
            messages: what to add: a message, or several in order.

        Returns:
            Their positions, a ``range``.

        Raises what the store raises (``AsyncThreadStore.append``).
        """
        ...

    async def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """The thread's messages in order; ``start``/``stop`` slice by position as a list slice does.

        Args:
            thread_id: the id of the thread to read.
            start: where the slice starts (a position).
            stop: where it stops, exclusive (``None``: at the end).

        Returns:
            The slice of the thread, in order.

        Raises what the store raises (``AsyncThreadStore.messages``).
        """
        ...


def _read_plan(window: ContextWindow, store: object) -> ReadPlan | None:
    """The window's read plan, when the window has one (those of ``messages.context``) and the store can
    serve it; ``None``: read the whole thread."""
    plan = getattr(window, "_read_plan", None)
    if plan is None or not (hasattr(store, "roles") and hasattr(store, "thread_info")):
        return None
    return plan()  # type: ignore[no-any-return]


def _envelope(ids: Any, metadata: Any, skip_existing: object, method: str) -> dict[str, Any]:
    """The envelope arguments of an append, passed on only when given (a store of the ``MessageStore``
    protocol alone takes none)."""
    check_flag(skip_existing, "skip_existing", f"LocalThread.{method}")
    given = {"ids": ids, "metadata": metadata, "skip_existing": skip_existing or None}
    return {name: value for name, value in given.items() if value is not None}


def _store_method(
    store: object,
    name: str,
    method: str,
    *,
    awaited: bool,
    owner: str = "LocalThread",
    caller: str = "thread",
) -> Callable[..., Any]:
    """``store``'s method ``name``, which ``<owner>.<method>`` calls: a coroutine function when the call is
    ``awaited`` (an async store), a plain one otherwise. A store of the other flavour, or an object that is
    no store, is refused before anything is called, with the method to use instead (on ``caller``, what
    the user's variable is called): a sync call of an async store would return a coroutine that never
    runs, an awaited call of a sync store would write, then fail on awaiting the result."""
    if isinstance(store, type):
        raise InvalidArgumentError(
            f"{owner}.{method}(): store is a store, not a class: make one first ({store.__name__}(...))",
            argument="store",
        )
    bound: Callable[..., Any] | None = getattr(store, name, None)
    if bound is None or not callable(bound):
        raise InvalidArgumentError(
            f"{owner}.{method}(): store is a thread store (messages.stores: SQLiteThreadStore, ...), "
            f"not a {type(store).__name__}, which has no {name}() method",
            argument="store",
        )
    if inspect.iscoroutinefunction(bound) != awaited:
        kind = type(store).__name__
        ours = type(store).__module__.startswith("messages.stores")
        if awaited:
            fix = f"its {name}() is a plain method: call {caller}.{method[1:]}(store, ...), not awaited"
            twin = f", or make the store an Async{kind}" if ours else ""
        else:
            fix = f"its {name}() is a coroutine function: call `await {caller}.a{method}(store, ...)`"
            twin = f", or make the store a {kind.removeprefix('Async')}" if ours else ""
        raise InvalidArgumentError(
            f"{owner}.{method}(): store is {'a sync' if awaited else 'an async'} store "
            f"({type(store).__name__}) and {fix}{twin}; nothing was written or read",
            argument="store",
        )
    return bound


def _check_window(window: object, method: str) -> ContextWindow:
    """``window`` when it is a context window (``add_message``, ``get_messages``, ``clear``)."""
    if isinstance(window, type):
        raise InvalidArgumentError(
            f"LocalThread.{method}(): window is a context window, not a class: make one first "
            f"({window.__name__}(...))",
            argument="window",
        )
    if not all(callable(getattr(window, name, None)) for name in ("add_message", "get_messages", "clear")):
        raise InvalidArgumentError(
            f"LocalThread.{method}(): window is a context window (messages.context: BufferedContext, "
            f"TokenLimitedContext, ..., or any object with add_message, get_messages and clear), not a "
            f"{type(window).__name__}; pass None to read the whole thread",
            argument="window",
        )
    return window  # type: ignore[return-value]  # it has the protocol's methods


_THREAD_CONFIG = ConfigDict(frozen=True, extra="forbid", defer_build=True)


def _finite(value: JsonValue, path: str = "context_state") -> None:
    """Refuse infinities and NaN, which JSON cannot carry (they would come back as ``null``)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{path} holds {value!r}, which JSON cannot represent; store it as a string")
    if isinstance(value, dict):
        for key, item in value.items():
            _finite(item, f"{path}[{key!r}]")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _finite(item, f"{path}[{index}]")


def _json_state(state: dict[str, JsonValue]) -> dict[str, JsonValue]:
    for key, value in state.items():
        _finite(value, f"context_state[{key!r}]")
    return state


ContextState = Annotated[dict[str, JsonValue], AfterValidator(_json_state)]
"""JSON-able state for context providers, by provider name; finite numbers only."""


class LocalThread(BaseModel):
    """A thread whose messages live with us, in a ``ThreadStore``, under ``id``.

    The value holds no messages, only state: pass the store to the methods that read or add messages.

    Args:
        kind: always ``"local"`` (the discriminator ``parse_thread`` reads).
        id: the thread's id in its store (default: a new random one, ``new_thread_id()``).
        context_state: JSON-able state for context providers, by provider name (default: empty).

    Raises:
        pydantic.ValidationError: ``id`` is empty, an unknown field is given, or ``context_state`` is not
            JSON-able (NaN and infinities included).

    Examples:
        ```python
        from messages import AIMessage, InMemoryThreadStore, LocalThread, UserMessage
        from messages.context import BufferedContext

        store = InMemoryThreadStore()
        thread = LocalThread()
        store.save_thread(thread)  # the store knows the thread before it holds messages
        thread.append(store, UserMessage(content="Hi"))
        thread.append(store, AIMessage(content="Hello! How can I help?"))
        assert len(thread.messages(store)) == 2
        window = thread.read(store, BufferedContext(buffer_size=1))  # the newest message
        assert window == [AIMessage(content="Hello! How can I help?")]
        assert store.load_thread(thread.id) == thread  # reopened by its id
        ```
    """

    model_config = _THREAD_CONFIG

    kind: Literal["local"] = "local"
    """Always ``"local"``: the discriminator that reloads a saved thread as the right type."""
    id: str = Field(default_factory=new_thread_id, min_length=1)
    """The thread's id in its store; a random one unless given."""
    context_state: ContextState = Field(default_factory=dict)
    """JSON-able state for context providers, by provider name."""

    def append(
        self,
        store: MessageStore,
        messages: Message | Iterable[Message],
        *,
        ids: Any = None,
        metadata: Any = None,
        skip_existing: bool = False,
    ) -> range:
        """Add one message or several, atomically, at the end; returns the positions they got (``ids``,
        ``metadata`` and ``skip_existing`` as ``ThreadStore.append`` takes them). A sync store: an async
        one is refused, before anything is written, naming ``aappend``.

        Args:
            store: a sync thread store that has saved this thread (``store.save_thread(thread)``).
            messages: one message or several, in order.
            ids: the messages' ids, one per message, as ``ThreadStore.append`` takes them (default: the
                store makes them).
            metadata: the messages' metadata, as ``ThreadStore.append`` takes it (default: none).
            skip_existing: leave out the messages whose id the thread already holds, instead of raising
                ``MessageExistsError`` (a retry).

        Returns:
            The positions the messages got in the thread.

        Raises:
            InvalidArgumentError: ``store`` is an async store (use ``aappend``) or no store, or ``ids``,
                ``metadata`` or ``skip_existing`` cannot be taken; nothing is written.

        And what ``store.append`` raises (``ThreadStore.append``: ``ThreadNotFoundError``,
        ``MessageExistsError``, ``MessageTypeError``, ``BackendError``...).
        """
        append = _store_method(store, "append", "append", awaited=False)
        added: range = append(self.id, messages, **_envelope(ids, metadata, skip_existing, "append"))
        return added

    def messages(self, store: MessageStore, start: int = 0, stop: int | None = None) -> list[Message]:
        """The stored messages, in order; ``start``/``stop`` slice by position as a list does.

        Args:
            store: the sync thread store that holds this thread.
            start: the position of the first message to read.
            stop: the position to stop before (``None``: the end).

        Returns:
            The messages from ``start`` to ``stop``, in order.

        Raises:
            InvalidArgumentError: ``store`` is an async store (use ``amessages``) or no store.

        And what ``store.messages`` raises (``ThreadStore.messages``).
        """
        read = _store_method(store, "messages", "messages", awaited=False)
        stored: list[Message] = read(self.id, start, stop)
        return stored

    def read(self, store: MessageStore, window: ContextWindow | None = None) -> list[Message]:
        """The conversation to send: every stored message, or what ``window`` keeps of them.

        With a window of ``messages.context`` and a ``ThreadStore``, the store is asked only for what the
        window can return (the tail, the head and the tail, or pages from the end for a token budget,
        always in whole exchanges), and the window is given that part of the thread: a turn costs what the
        window keeps, not what the thread holds. The answer is the one the window
        would give with every message added. Any other window is cleared and given every message of the
        thread in order (one read of the store). What its ``get_messages()`` returns is the answer.

        Args:
            store: the sync thread store that holds this thread.
            window: the context window to read through (its history is replaced); ``None``: every
                message.

        Returns:
            The messages to send: every stored message, or the window's ``get_messages()``.

        Raises:
            InvalidArgumentError: ``store`` is an async store (use ``aread``) or no store, or ``window`` is
                not a window.

        And what the store's reads raise (``ThreadStore.messages``, ``ThreadStore.roles``:
        ``ThreadNotFoundError``, ``CorruptDataError``, ``BackendError``...).
        """
        read: Callable[[str], list[Message]] = _store_method(store, "messages", "read", awaited=False)
        if window is None:
            return read(self.id)
        window = _check_window(window, "read")
        plan = _read_plan(window, store)
        if plan is not None:
            window._load_part(read_sync(store, self.id, plan))  # type: ignore[attr-defined, arg-type]
            return window.get_messages()
        stored = read(self.id)
        window.clear()
        for message in stored:
            window.add_message(message)
        return window.get_messages()

    async def aappend(
        self,
        store: AsyncMessageStore,
        messages: Message | Iterable[Message],
        *,
        ids: Any = None,
        metadata: Any = None,
        skip_existing: bool = False,
    ) -> range:
        """``append`` with an async store (``AsyncThreadStore``); a sync one is refused, before anything is
        written, naming ``append``.

        If the awaiting task is cancelled (``task.cancel()``, ``asyncio.wait_for``, ``asyncio.timeout``),
        the append either never started (nothing is written) or ran to its end (it is written, whole):
        settled by the time the ``CancelledError`` reaches the caller, so a read right after tells which,
        and nothing lands later. Give the messages ``ids`` and append again with ``skip_existing=True``: the
        retry adds what is missing and nothing twice.

        Args:
            store: an async thread store that has saved this thread.
            messages: one message or several, in order.
            ids: the messages' ids, one per message, as ``AsyncThreadStore.append`` takes them (default:
                the store makes them).
            metadata: the messages' metadata, as ``AsyncThreadStore.append`` takes it (default: none).
            skip_existing: leave out the messages whose id the thread already holds, instead of raising
                ``MessageExistsError`` (a retry).

        Returns:
            The positions the messages got in the thread.

        Raises:
            InvalidArgumentError: ``store`` is a sync store (use ``append``) or no store, or ``ids``,
                ``metadata`` or ``skip_existing`` cannot be taken; nothing is written.

        And what ``store.append`` raises (``AsyncThreadStore.append``: ``ThreadNotFoundError``,
        ``MessageExistsError``, ``MessageTypeError``, ``BackendError``...).
        """
        append = _store_method(store, "append", "aappend", awaited=True)
        added: range = await append(self.id, messages, **_envelope(ids, metadata, skip_existing, "aappend"))
        return added

    async def amessages(
        self, store: AsyncMessageStore, start: int = 0, stop: int | None = None
    ) -> list[Message]:
        """``messages`` with an async store.

        Args:
            store: the async thread store that holds this thread.
            start: as ``messages`` takes it (default: the first message).
            stop: as ``messages`` takes it.

        Returns:
            The stored messages from ``start`` to ``stop``.

        Raises:
            InvalidArgumentError: ``store`` is a sync store (use ``messages``) or no store.

        And what ``store.messages`` raises (``AsyncThreadStore.messages``).
        """
        read = _store_method(store, "messages", "amessages", awaited=True)
        stored: list[Message] = await read(self.id, start, stop)
        return stored

    async def aread(self, store: AsyncMessageStore, window: ContextWindow | None = None) -> list[Message]:
        """``read`` with an async store: the same reads, awaited.

        Args:
            store: the async thread store that holds this thread.
            window: as ``read`` takes it (``None``: the whole thread).

        Returns:
            What ``read`` returns: the conversation to send.

        Raises:
            InvalidArgumentError: ``store`` is a sync store (use ``read``) or no store, or ``window`` is not
                a window.

        And what the store's reads raise (``AsyncThreadStore.messages``, ``AsyncThreadStore.roles``:
        ``ThreadNotFoundError``, ``CorruptDataError``, ``BackendError``...).

        Examples:
            ```python
            import asyncio

            from messages import AsyncInMemoryThreadStore, LocalThread, UserMessage


            async def main() -> None:
                store = AsyncInMemoryThreadStore()
                thread = LocalThread()
                await store.save_thread(thread)
                await thread.aappend(store, UserMessage(content="Hi"))
                assert await thread.aread(store) == [UserMessage(content="Hi")]


            asyncio.run(main())
            ```
        """
        read: Callable[[str], Awaitable[list[Message]]] = _store_method(
            store, "messages", "aread", awaited=True
        )
        if window is None:
            return await read(self.id)
        window = _check_window(window, "aread")
        plan = _read_plan(window, store)
        if plan is not None:
            window._load_part(await read_async(store, self.id, plan))  # type: ignore[attr-defined, arg-type]
            return window.get_messages()
        stored = await read(self.id)
        window.clear()
        for message in stored:
            window.add_message(message)
        return window.get_messages()

    def with_context(self, provider: str, state: JsonValue) -> LocalThread:
        """A copy whose ``context_state[provider]`` is ``state`` (validated as JSON-able).

        Args:
            provider: the context provider's name, the key in ``context_state``.
            state: its JSON-able state; it replaces what the provider kept before.

        Returns:
            A new thread with the same id; this one is unchanged.

        Raises:
            InvalidArgumentError: ``state`` is not JSON or holds a value JSON cannot represent (NaN,
                infinity), the path named; or ``provider`` is not a non-empty string.
        """
        return _with_context(self, provider, state)


class RemoteThread(BaseModel):
    """A thread whose history the service keeps (the Responses API); we keep its last response's id.

    Flow: ``thread = thread.add(UserMessage(...))``; ``response = litellm.responses(model=...,
    **thread.request())``; ``thread, reply = thread.receive(response)``; answer ``reply.tool_calls`` with
    ``thread.add(ToolMessage.for_call(...))`` and request again.

    The id kept is the one the reply carries. litellm's replies carry an id of its own making (the
    provider's id wrapped with the provider's name, so that it can route the next call) and unwrap it on
    the way out: keep calling through litellm for the life of the thread.

    Args:
        kind: always ``"remote"`` (the discriminator ``parse_thread`` reads).
        id: our id for the thread, the store's key (default: a new random one, ``new_thread_id()``).
        response_id: the id of the service's last response (default: ``None``, before the first call).
        open_calls: the ``call_id`` of each function call the last response made (default: none).
        pending: the messages added since the last response (default: none); ``add`` adds to them.
        context_state: JSON-able state for context providers, by provider name (default: empty).

    Raises:
        pydantic.ValidationError: ``id`` is empty, an unknown field is given, a pending item is not a
            message, or ``context_state`` is not JSON-able.

    Examples:
        ```python
        from messages import RemoteThread, UserMessage

        thread = RemoteThread().add(UserMessage(content="Hi"))
        kwargs = thread.request()  # litellm.responses(model=..., **kwargs)
        assert kwargs["store"] is True and "previous_response_id" not in kwargs
        response = {  # what the service answered (litellm's object, or its dict)
            "id": "resp_1",
            "output": [
                {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": "Hello!"}]}
            ],
        }
        thread, reply = thread.receive(response)
        assert reply.content == "Hello!" and thread.response_id == "resp_1"
        next_turn = thread.add(UserMessage(content="Thanks")).request()
        assert next_turn["previous_response_id"] == "resp_1"
        ```
    """

    model_config = _THREAD_CONFIG

    kind: Literal["remote"] = "remote"
    """Always ``"remote"``: the discriminator that reloads a saved thread as the right type."""
    id: str = Field(default_factory=new_thread_id, min_length=1)
    """Our id for the thread (the store's key); the service's id is ``response_id``."""
    response_id: str | None = None
    """The id of the service's last response (``resp_...``), sent as ``previous_response_id``; ``None``
    before the first call."""
    open_calls: tuple[str, ...] = ()
    """The ``call_id`` of each function call the last response made: the next request must answer them."""
    pending: tuple[Message, ...] = ()
    """The messages added since the last response, in order: what the next request sends."""
    context_state: ContextState = Field(default_factory=dict)
    """JSON-able state for context providers, by provider name."""

    def add(self, messages: Message | Iterable[Message]) -> Self:
        """A copy with ``messages`` (one or several) added to ``pending``.

        Args:
            messages: one message or several, in order: the next user turn, or the results of the last
                response's function calls.

        Returns:
            A new thread; this one is unchanged.

        Raises:
            MessageTypeError: an item is not a ``Message``.
        """
        added = as_message_list(messages)
        return self.model_copy(update={"pending": (*self.pending, *added)})

    def request(self) -> dict[str, Any]:
        """The arguments of the next Responses API call: ``input``, ``previous_response_id``, ``store``.

        ``input`` holds the pending messages as input items (``messages.convert.to_responses_items``).
        A pending turn that uses a call id again (one the last response or an earlier pending turn
        used: Kimi K2 and local servers mint ``call_0`` in every turn) is sent with a new id,
        ``"<id>_<n>"``, on its call and on the results that answer it: the Responses API pairs an output
        with its call by ``call_id`` over the whole input and answers 400 "Duplicate function_call_output
        for call_id" (NousResearch/hermes-agent#102629). ``pending`` itself keeps the ids as given.
        Raises ``EmptyConversationError`` when nothing is pending, a ``ConversationError`` when the pending
        messages break the tool-call protocol against the last response (a call it made left unanswered, a
        result that answers no call, one id used twice in a turn), and a ``ConversionError`` naming the
        message and field for what input items cannot carry (a ``name``, reasoning or provider fields,
        audio): refused, never dropped.

        Returns:
            The keyword arguments to pass to ``litellm.responses`` beside ``model``.

        Raises:
            EmptyConversationError: there is nothing new to send.
            OrphanToolResultError: a pending tool result answers no call of the service's last response.
            UnansweredToolCallError: a call of the last response has no result before the next message.
            DuplicateToolCallIdError: a call answered twice.
            UnsupportedContentError: content the Responses API has no input form for.
        """
        if not self.pending:
            raise EmptyConversationError(
                f"remote thread {self.id!r} has no message added since its last response; add() the next "
                "user message, or the results of its function calls, first"
            )
        self._check_pending()
        kwargs: dict[str, Any] = {"input": to_responses_items(self._sent()), "store": True}
        if self.response_id is not None:
            kwargs["previous_response_id"] = self.response_id
        return kwargs

    def receive(self, response: Any) -> tuple[Self, AIMessage]:
        """The thread after ``response`` (its id kept, ``pending`` emptied), and the reply as an AIMessage.

        Args:
            response: the Responses API reply to the last ``request()`` (litellm's object, the OpenAI
                SDK's, or its dict).

        Returns:
            The new thread (this one is unchanged) and the reply; answer the reply's ``tool_calls`` with
            ``add(ToolMessage.for_call(...))`` before the next request.

        Raises:
            ReplyError: ``response`` is not a Responses API response this package can read.
        """
        reply = from_responses_output(response)
        thread = self.model_copy(
            update={
                "response_id": response_id(response),
                "open_calls": tuple(call.id for call in reply.tool_calls),
                "pending": (),
            }
        )
        return thread, reply

    def with_context(self, provider: str, state: JsonValue) -> RemoteThread:
        """A copy whose ``context_state[provider]`` is ``state`` (validated as JSON-able).

        Args:
            provider: the context provider's name, the key in ``context_state``.
            state: its JSON-able state; it replaces what the provider kept before.

        Returns:
            A new thread with the same id and response; this one is unchanged.

        Raises:
            InvalidArgumentError: ``state`` is not JSON or holds a value JSON cannot represent (NaN,
                infinity), the path named; or ``provider`` is not a non-empty string.
        """
        return _with_context(self, provider, state)

    def _check_pending(self) -> None:
        """The tool-call protocol over the last response's open calls followed by the pending messages."""
        where = "the last response"
        calls: tuple[str, ...] = self.open_calls  # the calls of the turn in progress
        answered: set[str] = set()
        for index, message in enumerate(self.pending):
            if isinstance(message, ToolMessage):
                call_id = message.tool_call_id
                if call_id not in calls:
                    raise OrphanToolResultError(
                        f"pending message {index} is a tool result for {call_id!r}, but {where} made no "
                        f"call with that id (it called {', '.join(map(repr, calls)) or 'nothing'}); drop it",
                        index=index,
                        tool_call_ids=(call_id,),
                    )
                if call_id in answered:
                    raise DuplicateToolCallIdError(
                        f"pending message {index} answers tool call {call_id!r} a second time",
                        index=index,
                        tool_call_ids=(call_id,),
                    )
                answered.add(call_id)
                continue
            self._check_answered(calls, answered, where, f"pending message {index}")
            calls, answered = (), set()
            if isinstance(message, AIMessage) and message.tool_calls:
                calls = tuple(call.id for call in message.tool_calls)
                for position, call_id in enumerate(calls):
                    if call_id in calls[:position]:
                        raise DuplicateToolCallIdError(
                            f"pending message {index} reuses tool-call id {call_id!r} in "
                            f"tool_calls[{position}], already used by tool_calls[{calls.index(call_id)}] of "
                            "the same turn; give each call its own id, or use repair_conversation()",
                            index=index,
                            tool_call_ids=(call_id,),
                        )
                where = f"pending message {index}"
        self._check_answered(calls, answered, where, "the end of the pending messages")

    def _sent(self) -> tuple[Message, ...]:
        """The pending messages as ``request`` sends them: a call whose id the last response or an earlier
        pending turn used gets ``"<id>_<n>"`` (no id of the thread's uses it), and so do the results that
        answer it; the rest as it is. Checked by ``_check_pending`` first: each turn's ids are distinct."""
        taken = {*self.open_calls}
        for message in self.pending:
            if isinstance(message, AIMessage):
                taken.update(call.id for call in message.tool_calls)
        seen = set(self.open_calls)
        renamed: dict[str, str] = {}  # the ids of the turn in progress that are sent under new ones
        sent: list[Message] = []
        for message in self.pending:
            if isinstance(message, ToolMessage):
                new = renamed.get(message.tool_call_id)
                sent.append(message if new is None else message.model_copy(update={"tool_call_id": new}))
                continue
            renamed = {}
            if isinstance(message, AIMessage) and message.tool_calls:
                calls = []
                for call in message.tool_calls:
                    if call.id in seen:
                        renamed[call.id] = unique_call_id(call.id, taken)
                        taken.add(renamed[call.id])
                        call = call.model_copy(update={"id": renamed[call.id]})
                    seen.add(call.id)
                    calls.append(call)
                if renamed:
                    message = message.model_copy(update={"tool_calls": calls})
            sent.append(message)
        return tuple(sent)

    def _check_answered(self, calls: tuple[str, ...], answered: set[str], where: str, before: str) -> None:
        missing = tuple(call_id for call_id in calls if call_id not in answered)
        if missing:
            raise UnansweredToolCallError(
                f"{where} of remote thread {self.id!r} called {', '.join(map(repr, missing))}, with no "
                f'result before {before}; the Responses API rejects that ("No tool output found for '
                'function call"): add ToolMessage.for_call(call, result) for each first',
                index=None,
                tool_call_ids=missing,
            )


_T = TypeVar("_T", LocalThread, RemoteThread)


def _with_context(thread: _T, provider: str, state: JsonValue) -> _T:
    method = f"{type(thread).__name__}.with_context()"
    if not isinstance(provider, str) or not provider:
        raise InvalidArgumentError(
            f"{method}: provider is a non-empty string (the context provider's name), not {provider!r:.60}",
            argument="provider",
        )
    context = dict(thread.context_state)
    context[provider] = state
    # Validated again (not model_copy): the new state must be JSON-able like the rest.
    try:
        return type(thread).model_validate({**thread.__dict__, "context_state": context})
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(step) for step in first["loc"])
        raise InvalidArgumentError(
            f"{method}: state cannot be kept with the thread: {where}: {first['msg']}", argument="state"
        ) from error


Thread = Annotated[LocalThread | RemoteThread, Field(discriminator="kind")]
"""Either kind of thread, told apart by ``kind``."""

_THREAD: TypeAdapter[LocalThread | RemoteThread] = TypeAdapter(Thread, config=ConfigDict(defer_build=True))


def parse_thread(data: str | bytes | Mapping[str, Any]) -> LocalThread | RemoteThread:
    """A thread from its JSON (``thread.model_dump_json()``) or its dict: ``LocalThread`` or ``RemoteThread``
    by ``kind``. Raises ``pydantic.ValidationError`` naming the field that is wrong.

    Args:
        data: a thread's JSON (a string or bytes) or its dict (``thread.model_dump()``).

    Returns:
        The thread, of the class its ``kind`` names.

    Raises:
        pydantic.ValidationError: ``data`` is not the JSON of a saved thread (the field that is wrong named).
    """
    if isinstance(data, (str, bytes)):
        return _THREAD.validate_json(data)
    return _THREAD.validate_python(data)
