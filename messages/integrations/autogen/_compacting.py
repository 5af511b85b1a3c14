"""``CompactingChatCompletionContext``: an AutoGen model context whose history lives in a thread of this
package's stores and is compacted into its summary checkpoints (``messages.compaction``).

AutoGen asked for a summarizing context (microsoft/autogen#6507; the PR, #6217, was closed unmerged). This
one keeps nothing in memory: ``add_message`` appends the AutoGen message to the thread (converted by
``messages.convert.autogen``, which keeps what AutoGen gives), and ``get_messages`` reads the thread through
a ``CompactingContext``: the leading system messages, the newest summary (an AutoGen ``SystemMessage``
that starts with ``messages.compaction.SUMMARY_MARKER``) and the newest whole exchanges after it that fit.
When the window is over its trigger, ``get_messages`` first compacts (the summarizer is called then, before
the model call that needs the room), so every request an agent makes stays within ``limit`` and its prefix
stays the same until the next checkpoint. The messages are never rewritten: the store keeps them all, and
several agents (or processes) sharing the thread store one checkpoint per base.

State is AutoGen's ``{"messages": [...]}`` (the window, as AutoGen's own contexts read it), with the
thread's id beside it (``"thread_id"``): loaded into this context over the same store, the thread goes on
as it was; loaded into AutoGen's own contexts, the window is the history; AutoGen's states load into this
one as a new thread holding their messages. As a component (``dump_component``), its configuration names
the store (an SQLite file or a PostgreSQL DSN), the thread and the settings; the summarizer must then be a
litellm model string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Self

from autogen_core import Component
from autogen_core.model_context import ChatCompletionContext, ChatCompletionContextState
from autogen_core.models import AssistantMessage, FunctionExecutionResultMessage, LLMMessage
from pydantic import BaseModel, Field

from messages.compaction import CompactingContext, Compaction, Compactor, LiteLLMSummarizer, Summarizer
from messages.convert.autogen import from_autogen, read_alone, to_autogen
from messages.errors import (
    InvalidArgumentError,
    InvalidThreadIdError,
    ThreadExistsError,
    ThreadNotFoundError,
)
from messages.integrations.autogen._contexts import state_messages
from messages.models import Message
from messages.stores import (
    AsyncPostgresThreadStore,
    AsyncSQLiteThreadStore,
    AsyncThreadStore,
    PostgresThreadStore,
    SQLiteThreadStore,
    ThreadStore,
)
from messages.stores._codec import check_thread_id
from messages.stores.base import call_store, in_worker
from messages.threads import LocalThread, new_thread_id

__all__ = ["CompactingChatCompletionContext", "CompactingChatCompletionContextConfig"]


class CompactingChatCompletionContextConfig(BaseModel):
    """The configuration of a ``CompactingChatCompletionContext``: where its thread is and how it
    compacts."""

    store: Literal["sqlite", "postgres"]
    """The store's backend."""
    location: str
    """The SQLite file's path, or the PostgreSQL DSN."""
    asynchronous: bool = False
    """Whether the store is the backend's async twin."""
    thread_id: str
    """The thread the history is kept in."""
    summarizer_model: str
    """The litellm model that writes the summaries (``LiteLLMSummarizer``)."""
    summarizer_options: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments of ``litellm.completion`` for the summarizer (``api_base``, ...)."""
    limit: int = Field(gt=0)
    """The window's limit, in tokens when ``model`` is given, else in messages."""
    trigger: int | None = None
    """The window size above which compaction is due (``None``: four fifths of ``limit``)."""
    keep: int | None = None
    """How much of the newest exchanges a compaction keeps (``None``: a quarter of ``limit``)."""
    model: str | None = None
    """The litellm model whose tokenizer counts (``None``: the window counts messages)."""
    max_summary_input_tokens: int | None = None
    """The summarizer's input budget in tokens (``None``: none)."""
    timeout: float | None = None
    """The most seconds a summarizer call may take (``None``: no bound)."""


class CompactingChatCompletionContext(
    ChatCompletionContext, Component[CompactingChatCompletionContextConfig]
):
    """An AutoGen model context over a thread of ``store`` (sync or async), compacted into summary
    checkpoints by ``summarizer`` (a litellm model string or any ``messages.compaction.Summarizer``); the
    other settings are ``messages.compaction.Compactor``'s. ``thread_id`` names the thread (made if
    missing; a new one when ``None``); ``initial_messages`` start a new thread (a thread the store holds
    already goes on as it is).

    Args:
        store: the thread store that keeps the history (a ``ThreadStore`` or an ``AsyncThreadStore``).
        thread_id: the thread to keep it in, made if the store lacks it (``None``: a new one).
        summarizer: a litellm model string, or a function from a ``SummaryRequest`` to the summary.
        limit: the window's limit, in tokens when ``model`` is given, else in messages.
        trigger: the window size above which compaction is due (default: four fifths of ``limit``).
        keep: how much of the newest exchanges a compaction keeps (default: a quarter of ``limit``).
        model: the litellm model whose tokenizer counts (default: the window counts messages).
        max_summary_input_tokens: the summarizer's input budget in tokens (default: none).
        timeout: the most seconds a summarizer call may take (default: no bound).
        initial_messages: AutoGen messages that start a new thread (ignored when the thread exists).

    Raises:
        InvalidArgumentError: ``store`` is not a ``ThreadStore`` or an ``AsyncThreadStore``; or what
            ``Compactor`` raises for the summarizer and the settings.
        InvalidThreadIdError: ``thread_id`` is not a usable id.
        ConversionError: an item of ``initial_messages`` is not an AutoGen ``LLMMessage`` (or cannot be
            converted).

    Examples:
        ```python
        import asyncio

        from autogen_core.models import AssistantMessage, UserMessage

        from messages import InMemoryThreadStore
        from messages.integrations.autogen import CompactingChatCompletionContext


        async def main() -> None:
            store = InMemoryThreadStore()  # or a SQLite / PostgreSQL store
            context = CompactingChatCompletionContext(
                store, summarizer=lambda request: "They said hi.", limit=6
            )
            for n in range(5):
                await context.add_message(UserMessage(content=f"hi {n}", source="user"))
                await context.add_message(AssistantMessage(content="Hello!", source="bot"))
                sent = await context.get_messages()  # compacted when over its trigger
            assert sent[0].content.endswith("They said hi.")  # the summary comes first
            assert len(store.messages(context.thread_id)) == 10  # nothing is lost


        asyncio.run(main())
        ```
    """

    component_config_schema = CompactingChatCompletionContextConfig
    component_provider_override = "messages.integrations.autogen.CompactingChatCompletionContext"

    def __init__(
        self,
        store: ThreadStore | AsyncThreadStore,
        thread_id: str | None = None,
        *,
        summarizer: Summarizer | str,
        limit: int,
        trigger: int | None = None,
        keep: int | None = None,
        model: str | None = None,
        max_summary_input_tokens: int | None = None,
        timeout: float | None = None,
        initial_messages: list[LLMMessage] | None = None,
    ) -> None:
        if not isinstance(store, ThreadStore | AsyncThreadStore):
            raise InvalidArgumentError(
                f"store must be a ThreadStore or an AsyncThreadStore, not a {type(store).__name__}",
                argument="store",
            )
        super().__init__(initial_messages)
        self.store = store
        """Where the thread is."""
        self.compactor = Compactor(
            summarizer,
            limit=limit,
            trigger=trigger,
            keep=keep,
            model=model,
            max_summary_input_tokens=max_summary_input_tokens,
            timeout=timeout,
        )
        """Writes the checkpoints; its ``window()`` reads the thread."""
        self._model = model
        self._thread = LocalThread(id=new_thread_id() if thread_id is None else check_thread_id(thread_id))
        self._pending: list[Message] = from_autogen(initial_messages) if initial_messages else []
        self._ready = False
        self._turn: AssistantMessage | None = None  # the last call turn added: what its results answer
        self.last_compaction: Compaction | None = None
        """What the last compaction did (``None`` before the first)."""

    @property
    def thread_id(self) -> str:
        """The id of the thread the history is kept in."""
        return self._thread.id

    # -- the store's calls: awaited, or in a worker thread and settled when cancelled (call_store) -------

    async def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return await call_store(self.store, method, *args, **kwargs)

    async def _holds(self, thread_id: str) -> bool:
        """Whether the store holds a thread of that id (one read of its record, not of every id)."""
        try:
            await self._call("thread_info", thread_id)
        except (ThreadNotFoundError, InvalidThreadIdError):
            return False
        return True

    async def _ensure_thread(self) -> None:
        if self._ready:
            return
        try:
            await self._call("create_thread", self._thread.id)
        except ThreadExistsError:
            self._pending = []  # a thread to go on with: the initial messages start only a new one
        if self._pending:
            await self._call("append", self._thread.id, self._pending)
            self._pending = []
        self._ready = True

    async def _read(self) -> tuple[CompactingContext, list[Message]]:
        window = self.compactor.window()
        if isinstance(self.store, AsyncThreadStore):
            got = await self._thread.aread(self.store, window)
        else:
            got = await in_worker(self._thread.read, self.store, window)
        return window, got

    # -- AutoGen's model context ------------------------------------------------------------------------

    async def add_message(self, message: LLMMessage) -> None:
        """Append ``message`` to the thread (``ConversionError``, nothing appended, for what the package's
        messages cannot hold).

        Args:
            message: the AutoGen message that comes next.

        Raises:
            ConversionError: ``message`` is not an AutoGen ``LLMMessage``, or holds what the package's
                messages cannot; nothing is appended.

        And what the store's ``create_thread`` and ``append`` raise (``ThreadStore.append``:
        ``StoreClosedError``, ``BackendError``...).
        """
        if isinstance(message, FunctionExecutionResultMessage):
            # Read with the turn whose calls it answers, so that each result's name is kept as AutoGen has
            # it (unset when it is its call's name).
            converted = from_autogen([self._turn, message])[1:] if self._turn else read_alone(message)
        else:
            converted = from_autogen([message])
            if isinstance(message, AssistantMessage) and isinstance(message.content, list):
                self._turn = message
        await self._ensure_thread()
        if converted:
            await self._call("append", self._thread.id, converted)

    async def get_messages(self) -> list[LLMMessage]:
        """The window to send: the leading system messages, the newest summary and the newest whole
        exchanges after it that fit; compacted first when the window is over its trigger.

        Returns:
            The window as AutoGen messages (the summary a ``SystemMessage``).

        Raises what ``Compactor.compact`` raises (``SummarizerError``, ``SummaryInputTooLargeError``: the
        thread is left as it was) and what the store's reads raise (``ThreadStore.messages``).
        """
        await self._ensure_thread()
        window, got = await self._read()
        if window.compaction_due():
            if isinstance(self.store, AsyncThreadStore):
                self.last_compaction = await self.compactor.acompact(self.store, self._thread)
            else:
                self.last_compaction = await in_worker(self.compactor.compact, self.store, self._thread)
            if self.last_compaction.written or self.last_compaction.conflict:
                window, got = await self._read()
        return list(to_autogen(got))

    async def clear(self) -> None:
        """Go on in a new, empty thread (the old one stays in the store, with its checkpoints).

        Raises nothing.
        """
        self._thread = LocalThread()
        self._pending, self._ready = [], False

    async def save_state(self) -> Mapping[str, Any]:
        """AutoGen's ``{"messages": [...]}`` (the window) with ``"thread_id"`` beside it.

        Returns:
            A new JSON-able dict, which ``load_state`` reads back (and AutoGen's contexts, the window).

        Raises what ``get_messages`` raises.
        """
        state = ChatCompletionContextState(messages=await self.get_messages()).model_dump()
        state["thread_id"] = self._thread.id
        return state

    async def load_state(self, state: Mapping[str, Any]) -> None:
        """Go on with the thread ``state`` names when the store holds it; else (a state of AutoGen's own
        contexts, or of another store) in a new thread holding its messages.

        Args:
            state: what ``save_state`` returned, or AutoGen's model-context state ``{"messages": [...]}``.

        Raises:
            ContextStateError: ``state`` is not AutoGen's model-context state (``{"messages": [...]}``); the
                context is left as it was.

        And what the store's ``thread_info`` raises (``ThreadStore.thread_info``), but for an id it does
        not hold.
        """
        messages = state_messages(state, type(self).__name__)
        thread_id = state.get("thread_id") if isinstance(state, Mapping) else None
        if isinstance(thread_id, str) and await self._holds(thread_id):
            self._thread, self._pending, self._ready = LocalThread(id=thread_id), [], True
            return
        self._thread = LocalThread()
        self._pending, self._ready = from_autogen(messages), False

    # -- the component ----------------------------------------------------------------------------------

    def _to_config(self) -> CompactingChatCompletionContextConfig:
        store = self.store
        if isinstance(store, SQLiteThreadStore | AsyncSQLiteThreadStore):
            kind: Literal["sqlite", "postgres"] = "sqlite"
            location = str(store.path)
        elif isinstance(store, PostgresThreadStore | AsyncPostgresThreadStore):
            kind, location = "postgres", store._dsn
        else:
            raise ValueError(
                f"a CompactingChatCompletionContext over a {type(store).__name__} has no configuration: only "
                "SQLite and PostgreSQL stores can be named in one"
            )
        summarizer = self.compactor.summarizer
        if not isinstance(summarizer, LiteLLMSummarizer):
            raise ValueError(
                "a CompactingChatCompletionContext has a configuration only when its summarizer is a litellm "
                f"model string (LiteLLMSummarizer), not a {type(summarizer).__name__}"
            )
        compactor = self.compactor
        return CompactingChatCompletionContextConfig(
            store=kind,
            location=location,
            asynchronous=isinstance(store, AsyncThreadStore),
            thread_id=self._thread.id,
            summarizer_model=summarizer.model,
            summarizer_options=dict(summarizer.completion_kwargs),
            limit=compactor.limit,
            trigger=compactor.trigger,
            keep=compactor.keep,
            model=self._model,
            max_summary_input_tokens=self.compactor.max_summary_input_tokens,
            timeout=self.compactor.timeout,
        )

    @classmethod
    def _from_config(cls, config: CompactingChatCompletionContextConfig) -> Self:
        store: ThreadStore | AsyncThreadStore
        if config.store == "sqlite":
            store = (
                AsyncSQLiteThreadStore(config.location)
                if config.asynchronous
                else SQLiteThreadStore(config.location)
            )
        elif config.asynchronous:
            store = AsyncPostgresThreadStore(config.location)
        else:
            store = PostgresThreadStore(config.location)
        return cls(
            store,
            config.thread_id,
            summarizer=LiteLLMSummarizer(config.summarizer_model, **config.summarizer_options),
            limit=config.limit,
            trigger=config.trigger,
            keep=config.keep,
            model=config.model,
            max_summary_input_tokens=config.max_summary_input_tokens,
            timeout=config.timeout,
        )
