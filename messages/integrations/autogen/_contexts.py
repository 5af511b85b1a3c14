"""The four windows of ``messages.context`` as AutoGen model contexts (``ChatCompletionContext`` components).

Each keeps AutoGen's ``LLMMessage`` objects as they were added and returns them as they are: a window
chooses which messages to send, and converts none of them (the token-limited one reads a message with
``messages.convert.autogen`` once, to count it with litellm, when it counts with a model name). The
choice follows the rules of ``messages.context`` (the same code, ``messages._window``): whole exchanges
(an ``AssistantMessage`` with tool calls and the ``FunctionExecutionResultMessage`` objects after it),
leading ``SystemMessage`` objects always kept, the newest exchange always kept.

Where these windows differ from AutoGen's own, on purpose:

* **No call is cut from its result.** AutoGen's windows cut at a message count or by popping messages
  from the middle, and only then drop a result message that ends up first; a call whose result was cut,
  or a result message whose call was, reaches the model, which answers 400 (quirks 1 and 2).
* **Leading system messages are kept on top of the bound**, not counted in it and then cut away.
* **The head-and-tail placeholder counts what it stands for**: the messages left out between head and
  tail, counted after the head and tail were trimmed to whole exchanges.
* **A leading orphan result is left out**: a ``FunctionExecutionResultMessage`` at the start of the
  history (after its system messages), whose call is gone (a trimmed log, AutoGen's own test of its
  token-limited context), answers no call in the window, and every provider refuses it; AutoGen's windows
  drop it when it comes first in their window, and so do these, wherever the window starts. It is still
  in the history and in ``save_state``. (``messages.context`` shows it instead: a window of this
  package's own messages never changes what it keeps.)

State is AutoGen's shared ``{"messages": [...]}`` (``ChatCompletionContextState``), so an AssistantAgent's
saved state loads into these windows and theirs into AutoGen's. Settings are not state: they are the
component's configuration (``dump_component`` / ``load_component``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self

from autogen_core import Component, ComponentModel
from autogen_core.model_context import ChatCompletionContext, ChatCompletionContextState
from autogen_core.models import (
    AssistantMessage,
    ChatCompletionClient,
    FunctionExecutionResultMessage,
    LLMMessage,
    SystemMessage,
    UserMessage,
)
from autogen_core.tools import ToolSchema
from pydantic import BaseModel, Field, ValidationError

from messages._window import (
    Suffix,
    TokenWindow,
    Units,
    checked_count,
    head_and_tail_window,
    positive_int,
    suffix_window,
)
from messages.errors import ContextStateError, MessageTypeError
from messages.integrations.autogen._tokens import LiteLLMTokens

__all__ = [
    "BufferedChatCompletionContext",
    "BufferedChatCompletionContextConfig",
    "HeadAndTailChatCompletionContext",
    "HeadAndTailChatCompletionContextConfig",
    "TokenLimitedChatCompletionContext",
    "TokenLimitedChatCompletionContextConfig",
    "UnboundedChatCompletionContext",
    "UnboundedChatCompletionContextConfig",
    "skipped_messages_note",
]

_TYPES = (SystemMessage, UserMessage, AssistantMessage, FunctionExecutionResultMessage)
_KINDS: dict[type, tuple[bool, bool]] = {
    SystemMessage: (True, False),
    UserMessage: (False, False),
    AssistantMessage: (False, False),
    FunctionExecutionResultMessage: (False, True),
}
"""(a system message, a tool result) by type: one look-up where three isinstance checks of pydantic models
cost a third of an agent's loop (python -m benchmarks autogen)."""
_PROVIDER = "messages.integrations.autogen."


def _check(message: Any, where: str) -> LLMMessage:
    if not isinstance(message, _TYPES):
        raise MessageTypeError(
            f"{where} is a {type(message).__name__}, not an AutoGen LLMMessage (SystemMessage, UserMessage, "
            "AssistantMessage or FunctionExecutionResultMessage)"
        )
    return message


def state_messages(state: Mapping[str, Any], owner: str) -> list[LLMMessage]:
    """The messages of AutoGen's model-context state (``{"messages": [...]}``); ``ContextStateError``
    naming ``owner`` (the context loading it) when ``state`` does not read as one."""
    try:
        return ChatCompletionContextState.model_validate(state).messages
    except ValidationError as exc:
        raise ContextStateError(
            f"cannot load this state into a {owner}: it is not AutoGen's model-context "
            f'state ({{"messages": [...]}}): {exc}'
        ) from None


class _Window(ChatCompletionContext):
    """The history and its units; a subclass chooses the window."""

    def __init__(self, initial_messages: list[LLMMessage] | None = None) -> None:
        for index, message in enumerate(initial_messages or ()):
            _check(message, f"initial message {index}")
        super().__init__(initial_messages)
        self._units = Units(skip_orphans=True)
        history = self._messages
        self._messages = []
        for message in history:
            self._append(message)

    def _append(self, message: LLMMessage) -> None:
        kind = _KINDS.get(type(message))
        if kind is None:  # a subclass
            kind = (isinstance(message, SystemMessage), isinstance(message, FunctionExecutionResultMessage))
        self._messages.append(message)
        self._units.add(*kind)

    def _reset(self) -> None:
        """Forget what the window derived from the history (the history was replaced)."""

    async def add_message(self, message: LLMMessage) -> None:
        """Add ``message`` at the end of the history.

        Args:
            message: the AutoGen message that comes next (``SystemMessage``, ``UserMessage``,
                ``AssistantMessage`` or ``FunctionExecutionResultMessage``).

        Raises:
            MessageTypeError: ``message`` is not one of those.
        """
        if type(message) not in _KINDS:
            _check(message, "the message to add")
        self._append(message)

    async def clear(self) -> None:
        """Empty the history, initial messages included.

        Raises nothing.
        """
        self._messages = []
        self._units.clear()
        self._reset()

    async def save_state(self) -> Mapping[str, Any]:
        """The history in AutoGen's shared state format, ``{"messages": [...]}`` (``LLMMessage`` dumps).

        Returns:
            A new JSON-able dict, which ``load_state`` of any AutoGen model context reads.

        Raises nothing.
        """
        return ChatCompletionContextState(messages=self._messages).model_dump()

    async def load_state(self, state: Mapping[str, Any]) -> None:
        """Replace the history with the one ``state`` holds: what ``save_state`` of this window or of any
        AutoGen model context wrote (an AssistantAgent's ``llm_context``). Raises ``ContextStateError``, and
        leaves the window unchanged, for a state that does not read as one.

        Args:
            state: AutoGen's model-context state, ``{"messages": [...]}``.

        Raises:
            ContextStateError: ``state`` does not read as AutoGen's model-context state; the window is
                left as it was.
        """
        messages = state_messages(state, type(self).__name__)
        self._messages = []
        self._units.clear()
        self._reset()
        for message in messages:
            self._append(message)

    def _from(self, first: int) -> list[LLMMessage]:
        """The leading system messages and the units from ``first`` on."""
        return suffix_window(self._messages, self._units, first)


# --- unbounded -----------------------------------------------------------------------------------------


class UnboundedChatCompletionContextConfig(BaseModel):
    """The configuration of an ``UnboundedChatCompletionContext``."""

    initial_messages: list[LLMMessage] | None = None
    """The messages the history starts with."""


class UnboundedChatCompletionContext(_Window, Component[UnboundedChatCompletionContextConfig]):
    """The whole history (but a leading orphan result), like AutoGen's ``UnboundedChatCompletionContext``.

    Args:
        initial_messages: the AutoGen messages the history starts with, in order (default: none).

    Raises:
        MessageTypeError: an item of ``initial_messages`` is not an AutoGen ``LLMMessage``.
    """

    component_config_schema = UnboundedChatCompletionContextConfig
    component_provider_override = _PROVIDER + "UnboundedChatCompletionContext"

    async def get_messages(self) -> list[LLMMessage]:
        """Every message of the history, in order, but a leading orphan result.

        Returns:
            The window, a new list of the messages as they were added.

        Raises nothing.
        """
        return self._from(0)

    def _to_config(self) -> UnboundedChatCompletionContextConfig:
        return UnboundedChatCompletionContextConfig(initial_messages=self._initial_messages)

    @classmethod
    def _from_config(cls, config: UnboundedChatCompletionContextConfig) -> Self:
        return cls(initial_messages=config.initial_messages)


# --- buffered ------------------------------------------------------------------------------------------


class BufferedChatCompletionContextConfig(BaseModel):
    """The configuration of a ``BufferedChatCompletionContext``."""

    buffer_size: int = Field(gt=0)
    """The most messages the window keeps after the leading system messages."""
    initial_messages: list[LLMMessage] | None = None
    """The messages the history starts with."""


class BufferedChatCompletionContext(_Window, Component[BufferedChatCompletionContextConfig]):
    """The last ``buffer_size`` messages, in whole exchanges, with the leading system messages on top.

    ``buffer_size`` counts AutoGen messages (a ``FunctionExecutionResultMessage`` is one, however many
    results it holds), as AutoGen's ``BufferedChatCompletionContext`` does; the window is the newest whole
    exchanges that fit, so it may hold fewer, and holds more only when the newest exchange alone does not
    fit (see ``messages.context.BufferedContext``). Reading the window costs O(size of the window), and
    nothing when no message was added since the last read (benchmarks: ``python3 scripts/dev.py bench
    autogen``).

    Args:
        buffer_size: the most messages the window keeps after the leading system messages (at least 1).
        initial_messages: the AutoGen messages the history starts with, in order (default: none).

    Raises:
        TypeError: ``buffer_size`` is not an int.
        ValueError: ``buffer_size`` is less than 1.
        MessageTypeError: an item of ``initial_messages`` is not an AutoGen ``LLMMessage``.

    Examples:
        ```python
        import asyncio

        from autogen_core.models import AssistantMessage, SystemMessage, UserMessage

        from messages.integrations.autogen import BufferedChatCompletionContext


        async def main() -> None:
            context = BufferedChatCompletionContext(buffer_size=2)
            await context.add_message(SystemMessage(content="Be brief."))
            for text in ["one", "two", "three"]:
                await context.add_message(UserMessage(content=text, source="user"))
                await context.add_message(AssistantMessage(content="ok", source="bot"))
            sent = await context.get_messages()  # the instructions, then the last 2
            assert [m.content for m in sent] == ["Be brief.", "three", "ok"]


        asyncio.run(main())
        ```
    """

    component_config_schema = BufferedChatCompletionContextConfig
    component_provider_override = _PROVIDER + "BufferedChatCompletionContext"

    def __init__(self, buffer_size: int, initial_messages: list[LLMMessage] | None = None) -> None:
        self._buffer_size = positive_int(buffer_size, "buffer_size")
        self._suffix = Suffix()
        super().__init__(initial_messages)

    @property
    def buffer_size(self) -> int:
        """The most messages the window keeps after the leading system messages."""
        return self._buffer_size

    def _reset(self) -> None:
        self._suffix.reset()

    async def get_messages(self) -> list[LLMMessage]:
        """The leading system messages and the newest whole exchanges of at most ``buffer_size`` messages.

        Returns:
            The window, a new list of the messages as they were added.

        Raises nothing.
        """
        self._suffix.sync(self._units, self._buffer_size)
        return self._from(self._suffix.first)

    def _to_config(self) -> BufferedChatCompletionContextConfig:
        return BufferedChatCompletionContextConfig(
            buffer_size=self._buffer_size, initial_messages=self._initial_messages
        )

    @classmethod
    def _from_config(cls, config: BufferedChatCompletionContextConfig) -> Self:
        return cls(buffer_size=config.buffer_size, initial_messages=config.initial_messages)


# --- head and tail -------------------------------------------------------------------------------------


def skipped_messages_note(count: int) -> UserMessage:
    """The placeholder of ``HeadAndTailChatCompletionContext``: AutoGen's own note ("Skipped 7 messages.",
    from ``source="System"``), with the count of the messages it stands for.

    Args:
        count: how many messages the note stands for.

    Returns:
        An AutoGen ``UserMessage``, such as ``"Skipped 3 messages."``.

    Raises nothing.
    """
    noun = "message" if count == 1 else "messages"
    return UserMessage(content=f"Skipped {count} {noun}.", source="System")


class HeadAndTailChatCompletionContextConfig(BaseModel):
    """The configuration of a ``HeadAndTailChatCompletionContext``."""

    head_size: int = Field(ge=0)
    """The most messages the head keeps after the leading system messages (0: none)."""
    tail_size: int = Field(gt=0)
    """The most messages the tail keeps."""
    initial_messages: list[LLMMessage] | None = None
    """The messages the history starts with."""


class HeadAndTailChatCompletionContext(_Window, Component[HeadAndTailChatCompletionContextConfig]):
    """The first ``head_size`` and the last ``tail_size`` messages, in whole exchanges, with a placeholder
    between them that counts the messages it stands for.

    The rules are ``messages.context.HeadAndTailContext``'s, over AutoGen messages: the whole history when
    its messages after the leading system messages number at most ``head_size + tail_size``; otherwise the
    oldest whole exchanges within ``head_size``, a ``UserMessage`` "Skipped N messages." (N: the history
    messages between head and tail), and the newest whole exchanges within ``tail_size``. AutoGen's own
    class says ``len(history) - head_size - tail_size``, which is wrong whenever it trims the head or the
    tail so as not to split a call from its result. ``head_size`` may be 0 (AutoGen's must be at least 1).

    Args:
        head_size: the most messages the head keeps after the leading system messages (0: no head).
        tail_size: the most messages the tail keeps (at least 1).
        initial_messages: the AutoGen messages the history starts with, in order (default: none).

    Raises:
        TypeError: ``head_size`` or ``tail_size`` is not an int.
        ValueError: ``head_size`` is negative, or ``tail_size`` is less than 1.
        MessageTypeError: an item of ``initial_messages`` is not an AutoGen ``LLMMessage``.

    Examples:
        ```python
        import asyncio

        from autogen_core.models import AssistantMessage, UserMessage

        from messages.integrations.autogen import HeadAndTailChatCompletionContext


        async def main() -> None:
            context = HeadAndTailChatCompletionContext(head_size=2, tail_size=2)
            for n in range(1, 5):
                await context.add_message(UserMessage(content=f"q{n}", source="user"))
                await context.add_message(AssistantMessage(content=f"a{n}", source="bot"))
            sent = [m.content for m in await context.get_messages()]
            assert sent == ["q1", "a1", "Skipped 4 messages.", "q4", "a4"]


        asyncio.run(main())
        ```
    """

    component_config_schema = HeadAndTailChatCompletionContextConfig
    component_provider_override = _PROVIDER + "HeadAndTailChatCompletionContext"

    def __init__(
        self, head_size: int, tail_size: int, initial_messages: list[LLMMessage] | None = None
    ) -> None:
        self._head_size = positive_int(head_size, "head_size", minimum=0)
        self._tail_size = positive_int(tail_size, "tail_size")
        self._suffix = Suffix()
        super().__init__(initial_messages)

    @property
    def head_size(self) -> int:
        """The most messages the head keeps after the leading system messages (0: none)."""
        return self._head_size

    @property
    def tail_size(self) -> int:
        """The most messages the tail keeps (the newest exchange is kept even when larger)."""
        return self._tail_size

    def _reset(self) -> None:
        self._suffix.reset()

    async def get_messages(self) -> list[LLMMessage]:
        """The leading system messages, the head, the placeholder and the tail (see the class docstring).

        Returns:
            The window, a new list (the whole history when head and tail leave nothing out).

        Raises nothing.
        """
        return head_and_tail_window(
            self._messages, self._units, self._suffix, self._head_size, self._tail_size, skipped_messages_note
        )

    def _to_config(self) -> HeadAndTailChatCompletionContextConfig:
        return HeadAndTailChatCompletionContextConfig(
            head_size=self._head_size, tail_size=self._tail_size, initial_messages=self._initial_messages
        )

    @classmethod
    def _from_config(cls, config: HeadAndTailChatCompletionContextConfig) -> Self:
        return cls(
            head_size=config.head_size, tail_size=config.tail_size, initial_messages=config.initial_messages
        )


# --- token-limited -------------------------------------------------------------------------------------


class TokenLimitedChatCompletionContextConfig(BaseModel):
    """The configuration of a ``TokenLimitedChatCompletionContext``: its counter is a model client's
    component configuration or a litellm model string, both serializable."""

    model_client: ComponentModel | None = None
    """The model client whose ``count_tokens`` counts (AutoGen's way)."""
    model: str | None = None
    """Or: the litellm model string whose tokenizer counts."""
    token_limit: int | None = Field(default=None, gt=0)
    """The most tokens the window holds; ``None``: the model's input window."""
    tool_schema: list[ToolSchema] | None = None
    """Tools sent with every request, counted against the limit."""
    initial_messages: list[LLMMessage] | None = None
    """The messages the history starts with."""


class TokenLimitedChatCompletionContext(_Window, Component[TokenLimitedChatCompletionContextConfig]):
    """The newest whole exchanges that fit in ``token_limit`` tokens, with the leading system messages.

    Takes AutoGen's arguments: ``model_client`` counts with its ``count_tokens`` (tools in ``tool_schema``
    included), as AutoGen's ``TokenLimitedChatCompletionContext`` does; or, instead, ``model=`` names a
    litellm model whose tokenizer counts (offline, as ``messages.context.TokenLimitedContext`` does). Without
    ``token_limit`` the limit is the model's input window: the client's ``remaining_tokens([])`` plus its
    count of an empty list, or litellm's ``max_input_tokens`` for the model.

    What is counted: the list's fixed overhead (a counter's count of an empty list, with the tools) plus
    each message's count (its count alone minus that overhead), each counted once and cached, so a window
    over ``n`` messages costs O(n) counts, where AutoGen's counts the whole list again after each message
    it pops. The bound and its exceptions are ``messages.context.TokenLimitedContext``'s: the window exceeds
    the limit only when the system messages and the newest exchange alone do, and ``token_count()`` says
    its size.

    Args:
        model_client: the AutoGen model client whose ``count_tokens`` counts.
        token_limit: the most tokens the window holds (default: the model's input window).
        tool_schema: the tools sent with every request, counted against the limit.
        initial_messages: the AutoGen messages the history starts with, in order (default: none).
        model: instead of ``model_client``, a litellm model string whose tokenizer counts.

    Raises:
        TypeError: neither or both of ``model_client`` and ``model`` are given, or ``token_limit`` is not an
            int.
        ValueError: ``token_limit`` is less than 1.
        MessageTypeError: an item of ``initial_messages`` is not an AutoGen ``LLMMessage``.

    Examples:
        ```python
        import asyncio

        from autogen_core.models import AssistantMessage, UserMessage

        from messages.integrations.autogen import TokenLimitedChatCompletionContext


        async def main() -> None:
            context = TokenLimitedChatCompletionContext(model="gpt-4o-mini", token_limit=40)
            for n in range(10):
                await context.add_message(UserMessage(content=f"question {n}", source="user"))
                await context.add_message(AssistantMessage(content="an answer", source="bot"))
            sent = await context.get_messages()  # the newest exchanges that fit
            assert 0 < len(sent) < 20 and context.token_count() <= 40
            assert sent[-1].content == "an answer"


        asyncio.run(main())
        ```
    """

    component_config_schema = TokenLimitedChatCompletionContextConfig
    component_provider_override = _PROVIDER + "TokenLimitedChatCompletionContext"

    def __init__(
        self,
        model_client: ChatCompletionClient | None = None,
        *,
        token_limit: int | None = None,
        tool_schema: list[ToolSchema] | None = None,
        initial_messages: list[LLMMessage] | None = None,
        model: str | None = None,
    ) -> None:
        if (model_client is None) == (model is None):
            raise TypeError(
                "TokenLimitedChatCompletionContext needs exactly one of model_client (an AutoGen model "
                "client, counting with its count_tokens) or model= (a litellm model string, counted with "
                "litellm); got "
                f"{'both' if model is not None else 'neither'}"
            )
        self._token_limit = None if token_limit is None else positive_int(token_limit, "token_limit")
        self._model_client = model_client
        self._model = model
        self._tool_schema: list[ToolSchema] = list(tool_schema or [])
        self._litellm = LiteLLMTokens(model) if model is not None else None
        self._overhead: int | None = None
        self._limit: int | None = None
        self._tokens = TokenWindow(self._count, self._ensure_overhead)
        super().__init__(initial_messages)

    @property
    def token_limit(self) -> int | None:
        """The limit given (``None``: the model's input window)."""
        return self._token_limit

    @property
    def model_client(self) -> ChatCompletionClient | None:
        """The model client that counts, if one was given."""
        return self._model_client

    @property
    def model(self) -> str | None:
        """The litellm model that counts, if one was named."""
        return self._model

    def _append(self, message: LLMMessage) -> None:
        super()._append(message)
        self._tokens.append()

    def _reset(self) -> None:
        self._tokens.reset(len(self._messages))

    def _list_count(self) -> Callable[[Sequence[LLMMessage]], int]:
        client = self._model_client
        assert client is not None
        tools = self._tool_schema
        return lambda messages: client.count_tokens(messages, tools=tools)

    def _ensure_overhead(self) -> int:
        if self._overhead is None:
            if self._litellm is not None:
                overhead = self._litellm.overhead + self._litellm.tools(self._tool_schema)
            else:
                overhead = checked_count(
                    self._list_count()([]), "model_client.count_tokens([])", "model_client"
                )
            self._overhead = overhead
        return self._overhead

    def _count(self, index: int) -> int:
        """The token count of the history's message at ``index`` (``TokenWindow`` caches it)."""
        message = self._messages[index]
        if self._litellm is not None:
            return checked_count(self._litellm.message(message), f"the token count of message {index}")
        return checked_count(
            self._list_count()([message]) - self._ensure_overhead(),
            f"the token count of message {index} (model_client.count_tokens([message {index}]) - "
            "model_client.count_tokens([]): it must add up per message)",
            "model_client",
        )

    def _ensure_limit(self) -> int:
        if self._token_limit is not None:
            return self._token_limit
        if self._limit is None:
            if self._litellm is not None:
                limit = self._litellm.limit()
                if limit is None:
                    raise ValueError(
                        f"litellm does not know the input window of {self._model!r}: give token_limit"
                    )
            else:
                client = self._model_client
                assert client is not None
                limit = client.remaining_tokens([], tools=self._tool_schema) + self._ensure_overhead()
            self._limit = limit
        return self._limit

    async def get_messages(self) -> list[LLMMessage]:
        """The leading system messages and the newest whole exchanges that fit in what the limit leaves.

        Returns:
            The window, a new list of the messages as they were added.

        Raises:
            ValueError: no ``token_limit`` was given and neither litellm nor the model client knows the
                model's input window.
            ConversionError: a message the token counter cannot read (the message index named).
        """
        if self._units.starts or self._units.lead:
            self._tokens.sync(self._units, self._ensure_limit())
        return self._from(self._tokens.suffix.first)

    def token_count(self) -> int:
        """The size in tokens of the current window, as counted (0 when the history is empty).

        Returns:
            The list's overhead (tools included) plus the count of each message of the window.

        Raises:
            ConversionError: a message the token counter cannot read (the message index named).
        """
        if not self._units.starts and not self._units.lead:
            return 0
        return self._tokens.size(self._units, self._ensure_limit())

    def _to_config(self) -> TokenLimitedChatCompletionContextConfig:
        return TokenLimitedChatCompletionContextConfig(
            model_client=self._model_client.dump_component() if self._model_client is not None else None,
            model=self._model,
            token_limit=self._token_limit,
            tool_schema=self._tool_schema or None,
            initial_messages=self._initial_messages,
        )

    @classmethod
    def _from_config(cls, config: TokenLimitedChatCompletionContextConfig) -> Self:
        client = (
            ChatCompletionClient.load_component(config.model_client)
            if config.model_client is not None
            else None
        )
        return cls(
            client,
            token_limit=config.token_limit,
            tool_schema=config.tool_schema,
            initial_messages=config.initial_messages,
            model=config.model,
        )
