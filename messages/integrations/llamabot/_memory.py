"""``ThreadStoreChatMemory``: llamabot's chat-memory protocol over a thread of this package's stores.

llamabot's bots use a memory through three methods, duck-typed: ``append(message)`` after each turn,
``retrieve(query, ...)`` for the history to send before the new messages, and ``reset()``. This memory
keeps one thread of a store (any backend, sync or async): ``append`` converts what it is given
(``messages.convert.llamabot``: what llamabot holds beside a message kept in the store's envelope, under
``"llamabot"``) and appends it; ``retrieve`` reads the thread through a window of ``messages.context``
(reading from the store only what the window keeps) and gives it back as llamabot messages, with their
classes and prompt hashes. So a window never starts at a tool result and never cuts a call from its
result, as llamabot's ``ChatMemory`` (the last ``n_results`` messages) does; and a thread goes on in
another process, or another machine, from its id.

Two things ``append`` reads for what it is: a llamabot ``ToolMessage``, which has no ``tool_call_id``,
answers the next call of the thread's latest turn that no result answers yet (the calls in order, as
llamabot's bots run them); and the text ``ToolBot`` records as its reply, the ``repr`` of its list of
calls, is stored as the calls it stands for (``_toolbot``), which ``retrieve`` gives back as the
``AIMessage(content="", tool_calls=[...])`` llamabot's ``SimpleBot`` makes of such a turn.

With a ``compactor`` (``messages.compaction.Compactor``), the window is the compactor's (the leading
system messages, the newest summary checkpoint, the newest exchanges after it that fit), and a read whose
window is over the compactor's trigger first compacts the thread: the summary is stored as a checkpoint
beside the messages, none of which is rewritten.

The package's own bots (``SimpleBot``, ``AsyncSimpleBot``, ``DecideNode`` of this subpackage) read the
thread as the package's messages (``read``), tool calls and their ids included, and append a whole turn
at once. Every method has an async twin (``aappend``, ``aretrieve``, ``aread``, ``areset``): over a sync
store it runs the store's calls in a worker thread; the sync methods over an async store run its calls on
an event loop of their own (in a worker thread when the calling thread runs one: llamabot's
``AsyncSimpleBot`` calls its memory's sync methods from its event loop).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any, TypeVar

from messages._window import read_async, read_sync
from messages.compaction import CompactingContext, Compaction, Compactor, _run_coroutine
from messages.context import BufferedContext, ChatCompletionContext
from messages.convert.llamabot import LlamabotEnvelope, from_llamabot, to_llamabot
from messages.errors import InvalidArgumentError, MessageTypeError, ThreadExistsError
from messages.integrations._arguments import check_compactor, check_store
from messages.integrations._windows import WindowFactory, window_factory
from messages.integrations.llamabot._toolbot import toolbot_calls
from messages.models import AIMessage, Message, SystemMessage, ToolMessage, UserMessage
from messages.stores import AsyncThreadStore, Checkpoint, MessageRecord, ThreadInfo, ThreadStore
from messages.stores._codec import check_thread_id
from messages.stores.base import call_store, in_worker
from messages.threads import new_thread_id

__all__ = ["ENVELOPE_KEY", "ThreadStoreChatMemory"]

ENVELOPE_KEY = "llamabot"
"""The key of a stored message's metadata under which its ``LlamabotEnvelope`` is kept (its JSON form)."""

DEFAULT_N_RESULTS = 10
"""The messages the default window keeps, as llamabot's ``ChatMemory.retrieve`` returns by default (here
in whole exchanges)."""

_MESSAGE_TYPES = (SystemMessage, UserMessage, AIMessage, ToolMessage)
_TAIL = 16  # the thread's newest messages read first to find its open calls (widened when all are results)
_T = TypeVar("_T")

Incoming = Any
"""What ``append`` takes: a message of this package or of llamabot, a string (a user message), or a list
of them."""


def _items(message: Incoming) -> list[Any]:
    if isinstance(message, (list, tuple)):
        return list(message)
    return [message]


def _open_calls(tail: Sequence[Message], whole: bool) -> list[str] | None:
    """The ids of the calls of the latest assistant turn of ``tail`` (the thread's newest messages) that no
    result after it answers, in order; ``None`` when ``tail`` is only results and not the whole thread."""
    answered: set[str] = set()
    for message in reversed(tail):
        if isinstance(message, ToolMessage):
            answered.add(message.tool_call_id)
            continue
        if isinstance(message, AIMessage):
            return [call.id for call in message.tool_calls if call.id not in answered]
        return []
    return [] if whole else None


def _needs_open_calls(items: Sequence[Any]) -> bool:
    """Whether a llamabot ``ToolMessage`` comes among ``items`` before any assistant turn: which call it
    answers is then in the store."""
    for item in items:
        if isinstance(item, (AIMessage,)) or getattr(item, "role", None) == "assistant":
            return False
        if not isinstance(item, _MESSAGE_TYPES) and getattr(item, "role", None) == "tool":
            return True
    return False


def convert_incoming(
    items: Sequence[Any], open_calls: Sequence[str]
) -> list[tuple[Message, LlamabotEnvelope]]:
    """``items`` (messages of this package or of llamabot, or strings) as messages of this package with
    their envelopes; llamabot's tool results answer ``open_calls`` and the calls of the turns among the
    items, in order. ``MessageTypeError`` for an item that is none of those; ``ConversionError`` for a
    llamabot message this package cannot hold."""
    import llamabot.components.messages as lm

    out: list[tuple[Message, LlamabotEnvelope]] = []
    open_ids = list(open_calls)
    for index, item in enumerate(items):
        if isinstance(item, str):
            item = UserMessage(content=item)
        if isinstance(item, _MESSAGE_TYPES):
            typed, envelope = item, LlamabotEnvelope()
        elif isinstance(item, lm.BaseMessage):
            calls = (
                toolbot_calls(item.content)
                if type(item) is lm.AIMessage and not item.tool_calls and isinstance(item.content, str)
                else None
            )
            if calls is not None:
                typed, envelope = AIMessage(tool_calls=calls), LlamabotEnvelope(prompt_hash=item.prompt_hash)
            else:
                (typed,), (envelope,) = from_llamabot([item], envelopes=True, open_calls=open_ids)
        else:
            raise MessageTypeError(
                f"item {index} is a {type(item).__name__}: a memory holds messages of this package or of "
                "llamabot (llamabot.components.messages), or strings (a user's text)"
            )
        if isinstance(typed, AIMessage):
            open_ids = [call.id for call in typed.tool_calls]
        elif isinstance(typed, ToolMessage):
            if typed.tool_call_id in open_ids:
                open_ids.remove(typed.tool_call_id)
        else:
            open_ids = []
        out.append((typed, envelope))
    return out


def _metadata(envelopes: Iterable[LlamabotEnvelope]) -> list[dict[str, Any] | None]:
    return [None if e.is_empty() else {ENVELOPE_KEY: e.to_json()} for e in envelopes]


def envelope_of(record: MessageRecord | None) -> LlamabotEnvelope | None:
    """The llamabot envelope kept with a stored message (``None``: none, or a message a window made)."""
    if record is None:
        return None
    kept: Any = record.metadata.get(ENVELOPE_KEY)
    return None if kept is None else LlamabotEnvelope.from_json(kept)


class _Records:
    """A sync store as ``read_sync`` reads it, reading records where it reads messages and keeping each
    message's record by the message's identity (a window keeps the objects it is given)."""

    def __init__(self, store: ThreadStore) -> None:
        self.store = store
        self.records: dict[int, MessageRecord] = {}

    def thread_info(self, thread_id: str) -> ThreadInfo:
        return self.store.thread_info(thread_id)

    def roles(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[str]:
        return self.store.roles(thread_id, start, stop)

    def latest_checkpoint(self, thread_id: str) -> Checkpoint | None:
        return self.store.latest_checkpoint(thread_id)

    def token_counts(self, thread_id: str, counter: str, start: int, stop: int) -> list[int | None]:
        return self.store.token_counts(thread_id, counter, start, stop)

    def save_token_counts(self, thread_id: str, counter: str, counts: dict[int, int]) -> None:
        self.store.save_token_counts(thread_id, counter, counts)

    def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        got = self.store.records(thread_id, start, stop)
        self.records.update((id(record.message), record) for record in got)
        return [record.message for record in got]


class _AsyncRecords:
    """``_Records`` for ``read_async``: an async store's calls awaited, a sync store's in a worker thread."""

    def __init__(self, store: ThreadStore | AsyncThreadStore) -> None:
        self.store = store
        self.records: dict[int, MessageRecord] = {}

    async def thread_info(self, thread_id: str) -> ThreadInfo:
        return await call_store(self.store, "thread_info", thread_id)  # type: ignore[no-any-return]

    async def roles(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[str]:
        return await call_store(self.store, "roles", thread_id, start, stop)  # type: ignore[no-any-return]

    async def latest_checkpoint(self, thread_id: str) -> Checkpoint | None:
        return await call_store(self.store, "latest_checkpoint", thread_id)  # type: ignore[no-any-return]

    async def token_counts(self, thread_id: str, counter: str, start: int, stop: int) -> list[int | None]:
        return await call_store(self.store, "token_counts", thread_id, counter, start, stop)  # type: ignore[no-any-return]

    async def save_token_counts(self, thread_id: str, counter: str, counts: dict[int, int]) -> None:
        await call_store(self.store, "save_token_counts", thread_id, counter, counts)

    async def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        got: list[MessageRecord] = await call_store(self.store, "records", thread_id, start, stop)
        self.records.update((id(record.message), record) for record in got)
        return [record.message for record in got]


Kept = list[tuple[Message, LlamabotEnvelope | None]]
"""What a read gives: each message of the window with its llamabot envelope (``None``: none)."""


def _kept(window: ChatCompletionContext, records: dict[int, MessageRecord]) -> Kept:
    return [(m, envelope_of(records.get(id(m)))) for m in window.get_messages()]


class ThreadStoreChatMemory:
    """A llamabot chat memory (``append``, ``retrieve``, ``reset``) over one thread of ``store``.

    Use it where llamabot takes a memory: ``SimpleBot(..., memory=memory)``, ``AsyncSimpleBot(...,
    memory=memory)``, ``ToolBot(..., chat_memory=memory)``, and the bots and decide node of this
    subpackage. ``thread_id`` names the thread (made on first use when the store has none; a new id when
    ``None``): a memory made in another process with the same store and id goes on with the same
    conversation.

    ``retrieve`` reads the thread through ``window`` (a window of ``messages.context``, copied empty for
    each read, or a function that makes one; default ``BufferedContext(10)``: the newest 10 messages in
    whole exchanges, llamabot's ``ChatMemory`` count), or the compactor's window when a ``compactor`` is
    given and ``window`` is not.

    Args:
        store: A thread store of this package, sync or async (``SQLiteThreadStore("chat.db")``,
            ``AsyncPostgresThreadStore(dsn)``, ...).
        thread_id: The thread's id; a new one when ``None``.
        window: The window ``retrieve`` and ``read`` read the thread through.
        compactor: Compacts the thread into summary checkpoints when a read's window is over its trigger.

    Raises:
        InvalidArgumentError: ``store`` is not a thread store of this package, ``window`` not a window or a
            function that makes one, ``compactor`` not a ``Compactor``.
        InvalidThreadIdError: ``thread_id`` is not a usable id.

    Examples:
        >>> from messages import InMemoryThreadStore
        >>> from llamabot.components.messages import AIMessage, HumanMessage
        >>> memory = ThreadStoreChatMemory(InMemoryThreadStore(), "chat-1")
        >>> memory.append(HumanMessage(content="Hello"))
        >>> memory.append(AIMessage(content="Hi there!"))
        >>> [m.content for m in memory.retrieve("anything")]
        ['Hello', 'Hi there!']
    """

    def __init__(
        self,
        store: ThreadStore | AsyncThreadStore,
        thread_id: str | None = None,
        *,
        window: ChatCompletionContext | WindowFactory | None = None,
        compactor: Compactor | None = None,
    ) -> None:
        self.store = check_store(store, "ThreadStoreChatMemory")
        """Where the thread is."""
        self.compactor = check_compactor(compactor, "ThreadStoreChatMemory")
        """Compacts the thread when a read's window is over its trigger (``None``: never)."""
        made = window_factory(window, "ThreadStoreChatMemory")
        if made is None:
            made = compactor.window if compactor is not None else _default_window
        self.window: WindowFactory = made
        """Makes the window each read goes through."""
        self.last_compaction: Compaction | None = None
        """What the last compaction did (``None`` before the first)."""
        self._thread_id = new_thread_id() if thread_id is None else check_thread_id(thread_id)
        self._ready = False

    @property
    def thread_id(self) -> str:
        """The id of the thread the conversation is kept in (a new one after ``reset``)."""
        return self._thread_id

    @property
    def asynchronous(self) -> bool:
        """Whether the store is an async one (the async methods await it; the sync ones run it on an event
        loop of their own)."""
        return isinstance(self.store, AsyncThreadStore)

    def _window(self, n_results: int | None) -> ChatCompletionContext:
        if n_results is None:
            return self.window()
        if isinstance(n_results, bool) or not isinstance(n_results, int) or n_results < 1:
            raise InvalidArgumentError(
                f"retrieve(): n_results is a number of messages of at least 1, or None; got {n_results!r}",
                argument="n_results",
            )
        return BufferedContext(n_results)

    def _sync(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        """Run an async store's work from sync code (on an event loop of its own)."""
        result: _T = _run_coroutine(coroutine)
        return result

    # -- llamabot's memory protocol, sync ----------------------------------------------------------------

    def append(self, message: Incoming) -> None:
        """Append ``message`` (or a list of messages, atomically) at the end of the thread.

        Messages of this package are stored as they are; llamabot's are converted
        (``messages.convert.llamabot``), what llamabot holds beside them kept in the store's envelope; a
        string is a user's text.

        Args:
            message: A message of this package or of llamabot, a string, or a list of them.

        Raises:
            MessageTypeError: an item is none of those.
            ConversionError: a llamabot message this package cannot hold (a role it has no message for, a
                ``ToolMessage`` with no call left to answer); nothing is appended.

        And what the store's ``create_thread`` and ``append`` raise (``ThreadStore.append``).
        """
        if self.asynchronous:
            self._sync(self.aappend(message))
            return
        store = self.store
        assert isinstance(store, ThreadStore)
        items = _items(message)
        self._ensure_thread()
        open_calls = self._open_calls() if _needs_open_calls(items) else []
        converted = convert_incoming(items, open_calls)
        if converted:
            messages, envelopes = zip(*converted, strict=True)
            store.append(self._thread_id, list(messages), metadata=_metadata(envelopes))

    def retrieve(
        self, query: str | None = None, n_results: int | None = None, context_depth: int | None = None
    ) -> list[Any]:
        """The conversation to send before the new messages, as llamabot messages: what the window keeps of
        the thread (compacted first when a compactor is set and the window is over its trigger).

        ``query`` and ``context_depth`` are the arguments of llamabot's ``ChatMemory.retrieve``, which a
        linear memory does not use either; ``n_results`` reads the newest ``n_results`` messages in whole
        exchanges (``BufferedContext(n_results)``) instead of the window (and does not compact).

        Args:
            query: Not used (llamabot's bots pass their query).
            n_results: Read this many messages at most, in whole exchanges, instead of the window.
            context_depth: Not used.

        Returns:
            llamabot messages (``to_llamabot`` with the envelopes kept in the store).

        Raises:
            InvalidArgumentError: ``n_results`` is not an int of at least 1.
            ConversionError: a stored message llamabot's messages cannot be (content parts).

        And what ``read`` raises.
        """
        del query, context_depth
        if self.asynchronous:
            return self._sync(self.aretrieve(n_results=n_results))
        return _to_llamabot(
            self._read_kept(self._window(n_results), compact=n_results is None, envelopes=True)
        )

    def reset(self) -> None:
        """Go on in a new, empty thread (the old one stays in the store, with its checkpoints).

        Raises nothing.
        """
        self._thread_id, self._ready = new_thread_id(), False

    def read(self) -> list[Message]:
        """What the window keeps of the thread, as the package's messages (tool calls and their ids
        included): the history a bot of this subpackage sends; compacted first when a compactor is set and
        the window is over its trigger.

        Returns:
            The window's messages, in order.

        Raises:
            InvalidArgumentError: the window's token counter returned something that is not a count.

        And what ``Compactor.compact`` raises (``SummarizerError``: the thread is left as it was) and what the
        store's reads raise (``ThreadStore.messages``).
        """
        if self.asynchronous:
            return self._sync(self.aread())
        return [message for message, _ in self._read_kept(self.window(), compact=True, envelopes=False)]

    # -- the same, awaited -------------------------------------------------------------------------------

    async def aappend(self, message: Incoming) -> None:
        """``append``, awaited: an async store's calls awaited, a sync store's in a worker thread.

        Args:
            message: A message of this package or of llamabot, a string, or a list of them.

        Raises what ``append`` raises.
        """
        items = _items(message)
        await self._aensure_thread()
        open_calls = await self._aopen_calls() if _needs_open_calls(items) else []
        converted = convert_incoming(items, open_calls)
        if converted:
            messages, envelopes = zip(*converted, strict=True)
            await call_store(
                self.store, "append", self._thread_id, list(messages), metadata=_metadata(envelopes)
            )

    async def aretrieve(
        self, query: str | None = None, n_results: int | None = None, context_depth: int | None = None
    ) -> list[Any]:
        """``retrieve``, awaited.

        Args:
            query: as ``retrieve`` takes it (not used).
            n_results: as ``retrieve`` takes it: the most messages to read instead of the window.
            context_depth: as ``retrieve`` takes it (not used).

        Returns:
            What ``retrieve`` returns: llamabot messages.

        Raises what ``retrieve`` raises.
        """
        del query, context_depth
        window = self._window(n_results)
        return _to_llamabot(await self._aread_kept(window, compact=n_results is None, envelopes=True))

    async def areset(self) -> None:
        """``reset`` (nothing to await: the old thread stays in the store).

        Raises nothing.
        """
        self.reset()

    async def aread(self) -> list[Message]:
        """``read``, awaited.

        Returns:
            The window's messages, in order.

        Raises what ``read`` raises (``Compactor.acompact``'s errors for the compaction).
        """
        kept = await self._aread_kept(self.window(), compact=True, envelopes=False)
        return [message for message, _ in kept]

    # -- the store's calls -----------------------------------------------------------------------------

    def _ensure_thread(self) -> None:
        if self._ready:
            return
        store = self.store
        assert isinstance(store, ThreadStore)
        with contextlib.suppress(ThreadExistsError):  # a thread to go on with
            store.create_thread(self._thread_id)
        self._ready = True

    async def _aensure_thread(self) -> None:
        if self._ready:
            return
        with contextlib.suppress(ThreadExistsError):
            await call_store(self.store, "create_thread", self._thread_id)
        self._ready = True

    def _open_calls(self) -> list[str]:
        """The ids of the calls of the thread's latest turn that no result answers yet, in order."""
        if self.asynchronous:
            return self._sync(self._aopen_calls())
        store = self.store
        assert isinstance(store, ThreadStore)
        self._ensure_thread()
        return _widening(lambda size: store.messages(self._thread_id, -size))

    async def _aopen_calls(self) -> list[str]:
        await self._aensure_thread()
        size = _TAIL
        while True:  # _widening, awaited
            tail: list[Message] = await call_store(self.store, "messages", self._thread_id, -size)
            found = _open_calls(tail, whole=len(tail) < size)
            if found is not None:
                return found
            size *= 4

    def _read_kept(self, window: ChatCompletionContext, *, compact: bool, envelopes: bool) -> Kept:
        store = self.store
        assert isinstance(store, ThreadStore)
        self._ensure_thread()
        kept = self._read_once(store, window, envelopes)
        if compact and self.compactor is not None and _due(window):
            self.last_compaction = self.compactor.compact(store, self._thread_id)
            if self.last_compaction.written or self.last_compaction.conflict:
                window.clear()
                kept = self._read_once(store, window, envelopes)
        return kept

    def _read_once(self, store: ThreadStore, window: ChatCompletionContext, envelopes: bool) -> Kept:
        """One read of the thread through ``window``: with ``envelopes``, each message's record read beside
        it (llamabot's messages are given back from them); without, the store's own read of a window (one
        snapshot in the package's stores), as the package's bots need it."""
        reader = _Records(store) if envelopes else None
        plan = window._read_plan()
        if plan is None:  # a window that chooses otherwise: it is given every message
            window.clear()
            for message in (reader or store).messages(self._thread_id):
                window.add_message(message)
        else:
            window._load_part(read_sync(reader or store, self._thread_id, plan))
        return _kept(window, reader.records if reader else {})

    async def _aread_kept(self, window: ChatCompletionContext, *, compact: bool, envelopes: bool) -> Kept:
        await self._aensure_thread()
        kept = await self._aread_once(window, envelopes)
        if compact and self.compactor is not None and _due(window):
            if isinstance(self.store, AsyncThreadStore):
                self.last_compaction = await self.compactor.acompact(self.store, self._thread_id)
            else:
                self.last_compaction = await in_worker(self.compactor.compact, self.store, self._thread_id)
            if self.last_compaction.written or self.last_compaction.conflict:
                window.clear()
                kept = await self._aread_once(window, envelopes)
        return kept

    async def _aread_once(self, window: ChatCompletionContext, envelopes: bool) -> Kept:
        """``_read_once``, awaited: an async store's read awaited, a sync store's run in a worker thread."""
        store = self.store
        if isinstance(store, ThreadStore) and not envelopes:
            return await in_worker(self._read_once, store, window, False)
        reader = _AsyncRecords(store)
        plan = window._read_plan()
        if plan is None:
            window.clear()
            for message in await reader.messages(self._thread_id):
                window.add_message(message)
        elif envelopes:
            window._load_part(await read_async(reader, self._thread_id, plan))
        else:
            assert isinstance(store, AsyncThreadStore)
            window._load_part(await read_async(store, self._thread_id, plan))
        return _kept(window, reader.records)


def _default_window() -> ChatCompletionContext:
    return BufferedContext(DEFAULT_N_RESULTS)


def _due(window: ChatCompletionContext) -> bool:
    """Whether to ask the compactor: a compacting window says whether it is over its trigger; with another
    window, the compactor reads the thread to know."""
    return not isinstance(window, CompactingContext) or window.compaction_due()


def _widening(read: Callable[[int], list[Message]]) -> list[str]:
    """The thread's open calls (``_open_calls``), reading its tail wider until the turn is in it."""
    size = _TAIL
    while True:
        tail = read(size)
        found = _open_calls(tail, whole=len(tail) < size)
        if found is not None:
            return found
        size *= 4


def _to_llamabot(kept: Kept) -> list[Any]:
    messages = [message for message, _ in kept]
    return to_llamabot(messages, [envelope for _, envelope in kept])
