"""An AutoGen ``ChatCompletionClient`` that sends through ``litellm.acompletion`` with the provider profiles.

Each request reads AutoGen's messages with ``messages.convert.autogen.from_autogen``, checks the tool-call
protocol and applies the provider's profile (``dump_messages(conversation, model=...)``), then calls
``litellm.acompletion``. So an AutoGen agent gets every fix of the quirk catalog on every provider litellm
reaches (Gemini's empty texts, Mistral's nine-character ids, Anthropic's unique ids, ...), and what no
profile can fix raises before the request, naming the message, instead of a provider's 400.

The reply becomes a ``CreateResult`` as AutoGen's own clients make it: a reply with tool calls is
``FunctionCall`` objects (the arguments' exact string), with the text beside them as ``thought`` and
``finish_reason="function_calls"``; a reply in text is its text, with the model's reasoning as
``thought``; a refusal without text is the content. A turn with tool calls has no place in AutoGen's
types for what its provider wants back on the next request (DeepSeek's ``reasoning_content`` in thinking
mode, Anthropic's signed thinking blocks, reasoning details, provider fields): the client keeps them beside
AutoGen's messages, by the turn's calls (``_Replies``), and puts them back when that turn comes back in
the history, so the provider gets its own reasoning, not the profile's stand-in (DeepSeek's ``" "``,
quirk 34). A history from elsewhere (another process, a saved state) has none to put back. What a text
reply's ``CreateResult`` has no place for (signed thinking blocks, annotations) is not carried: AutoGen's
own clients drop it too, and no provider needs it back.
"""

from __future__ import annotations

import asyncio
import re
from collections import OrderedDict
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, Literal, Self

from autogen_core import CancellationToken, Component, FunctionCall
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
    ModelCapabilities,
    ModelFamily,
    ModelInfo,
    RequestUsage,
)
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel, SecretStr

from messages import _litellm
from messages._io import dump_messages
from messages.convert.autogen import from_autogen
from messages.integrations.autogen._tokens import LiteLLMTokens, openai_tools, tool_choice
from messages.models import AIMessage, Message
from messages.parts import TextPart
from messages.profiles import OnUnfixable
from messages.streaming import StreamAccumulator

__all__ = ["LiteLLMChatCompletionClient", "LiteLLMChatCompletionClientConfig"]

_SECRET = re.compile(r"(key|secret|credentials|token)$")
"""Completion arguments written to the configuration as secrets (``api_key``, ``aws_secret_access_key``,
``vertex_credentials``, ``aws_session_token``; not ``max_tokens``)."""
_MASK = str(SecretStr("x"))
"""What pydantic writes for a ``SecretStr`` (``"**********"``)."""
_RESERVED = frozenset({"model", "messages", "tools", "tool_choice", "stream", "stream_options"})
_FINISH: dict[str, Literal["stop", "length", "function_calls", "content_filter"]] = {
    "stop": "stop",
    "end_turn": "stop",
    "length": "length",
    "max_tokens": "length",
    "tool_calls": "function_calls",
    "function_call": "function_calls",
    "function_calls": "function_calls",
    "tool_use": "function_calls",
    "content_filter": "content_filter",
}
_FAMILIES = sorted(
    (family for family in ModelFamily.__dict__.values() if isinstance(family, str) and family != "unknown"),
    key=len,
    reverse=True,
)


_KEPT_FIELDS = ("reasoning_content", "thinking_blocks", "provider_specific_fields", "provider")
"""What a reply with tool calls carries that AutoGen's ``FunctionCall`` and ``thought`` have no place for."""


class _Replies:
    """What the newest replies with tool calls carried beside their calls (``_KEPT_FIELDS``), by their
    calls (id, name and arguments), for the requests that send those turns back; the oldest are let go."""

    def __init__(self, size: int = 256) -> None:
        self._kept: OrderedDict[tuple[tuple[str, str, str], ...], dict[str, Any]] = OrderedDict()
        self._size = size

    @staticmethod
    def _key(reply: AIMessage) -> tuple[tuple[str, str, str], ...]:
        return tuple((call.id, call.name, call.arguments) for call in reply.tool_calls)

    def remember(self, reply: AIMessage) -> None:
        kept = {name: getattr(reply, name) for name in _KEPT_FIELDS if getattr(reply, name) is not None}
        if not reply.tool_calls or not kept:
            return
        key = self._key(reply)
        self._kept[key] = kept
        self._kept.move_to_end(key)
        while len(self._kept) > self._size:
            self._kept.popitem(last=False)

    def restore(self, conversation: list[Message]) -> list[Message]:
        """``conversation`` with each turn it remembers given back what AutoGen's types left out."""
        if not self._kept:
            return conversation
        out: list[Message] = []
        for m in conversation:
            if isinstance(m, AIMessage) and m.tool_calls:
                kept = self._kept.get(self._key(m))
                if kept:
                    m = m.model_copy(update={k: v for k, v in kept.items() if getattr(m, k) is None})
            out.append(m)
        return out


class LiteLLMChatCompletionClientConfig(BaseModel):
    """The configuration of a ``LiteLLMChatCompletionClient`` (AutoGen's ``dump_component``)."""

    model: str
    """The litellm model string (``"gemini/gemini-2.5-flash"``)."""
    model_info: ModelInfo | None = None
    """What the model can do, when not taken from litellm's model map."""
    max_input_tokens: int | None = None
    """The model's input window, when not taken from litellm's model map."""
    on_unfixable: Literal["raise", "send"] = "raise"
    """What a request does with what the provider's profile cannot fix (``dump_messages``)."""
    completion_args: dict[str, Any] = {}
    """Further arguments of every ``litellm.acompletion`` call (``temperature``, ``api_base``, ...)."""
    secret_args: dict[str, SecretStr] = {}
    """Arguments that are secrets (names ending in ``key``, ``secret``, ``credentials`` or ``token``),
    written out masked (``"**********"``), as AutoGen writes its clients' API keys. A mask read back is
    left out when loading: litellm then reads the key from its environment variable
    (``OPENAI_API_KEY``, ...), where a key belongs rather than in a configuration."""


def _family(model: str) -> str:
    """AutoGen's ``ModelFamily`` of a litellm model string, by the model's name; ``"unknown"`` if none."""
    name = model.rsplit("/", 1)[-1].lower()
    names = {name, name.replace(".", "")}
    if "." in name:  # Bedrock's vendor.model
        rest = name.split(".", 1)[1]
        names |= {rest, rest.replace(".", "")}
    for family in _FAMILIES:
        if any(candidate.startswith(family) for candidate in names):
            return family
    return ModelFamily.UNKNOWN


def _model_info(model: str) -> ModelInfo:
    import litellm

    try:
        info = litellm.get_model_info(model)
    except Exception:  # litellm raises a bare Exception for a model its map does not know
        raise ValueError(
            f"litellm's model map does not know {model!r}, so what it can do is not known: give model_info "
            "(vision, function_calling, json_output, structured_output, family)"
        ) from None
    schema = bool(info.get("supports_response_schema"))
    return ModelInfo(
        vision=bool(info.get("supports_vision")),
        function_calling=bool(info.get("supports_function_calling")),
        json_output=schema or bool(info.get("supports_native_structured_output")),
        structured_output=schema,
        family=_family(model),
        multiple_system_messages=True,
    )


def _text(reply: AIMessage) -> str:
    if isinstance(reply.content, list):
        return "".join(part.text for part in reply.content if isinstance(part, TextPart))
    return reply.content or ""


def _usage(usage: Any) -> RequestUsage:
    def read(name: str) -> int:
        value = usage.get(name) if isinstance(usage, Mapping) else getattr(usage, name, None)
        return int(value or 0)

    if usage is None:
        return RequestUsage(prompt_tokens=0, completion_tokens=0)
    return RequestUsage(prompt_tokens=read("prompt_tokens"), completion_tokens=read("completion_tokens"))


def _result(reply: AIMessage, finish_reason: str | None, usage: RequestUsage, cached: bool) -> CreateResult:
    text = _text(reply)
    if reply.tool_calls:
        calls = [FunctionCall(id=c.id, arguments=c.arguments, name=c.name) for c in reply.tool_calls]
        return CreateResult(
            finish_reason="function_calls", content=calls, thought=text or None, usage=usage, cached=cached
        )
    return CreateResult(
        finish_reason=_FINISH.get((finish_reason or "").lower(), "unknown"),
        content=text or (reply.refusal or ""),
        thought=reply.reasoning_content,
        usage=usage,
        cached=cached,
    )


def _add(one: RequestUsage, other: RequestUsage) -> RequestUsage:
    return RequestUsage(
        prompt_tokens=one.prompt_tokens + other.prompt_tokens,
        completion_tokens=one.completion_tokens + other.completion_tokens,
    )


class LiteLLMChatCompletionClient(ChatCompletionClient, Component[LiteLLMChatCompletionClientConfig]):
    """An AutoGen model client for any model litellm reaches, its requests fixed by the provider profiles.

    ``model`` is a litellm model string; the other keywords go to every ``litellm.acompletion`` call
    (``api_base``, ``api_key``, ``temperature``, ``num_retries``, ...). What the model can do
    (``model_info``: vision, function calling, JSON output) and its input window (``max_input_tokens``, for
    ``remaining_tokens`` and for a token-limited window without a limit) come from litellm's model map
    unless given. ``count_tokens`` counts with litellm's tokenizer for the model, offline. What the
    provider's profile cannot fix (content the provider has no form for) raises ``UnfixableError`` before
    the request, naming the message and part, unless ``on_unfixable="send"``.

    ``create`` and ``create_stream`` take AutoGen's arguments: ``tools`` (``Tool`` objects or
    ``ToolSchema`` dicts), ``tool_choice``, ``json_output`` (``True`` for JSON mode, a Pydantic model class
    for structured output), ``extra_create_args`` (more litellm arguments for this call) and a
    ``cancellation_token`` that cancels the request. ``create_stream`` yields the reply's text as it
    arrives, then the ``CreateResult``.

    Args:
        model: the litellm model string (``"gemini/gemini-2.5-flash"``).
        model_info: what the model can do (default: read from litellm's model map).
        max_input_tokens: the model's input window (default: read from litellm's model map).
        on_unfixable: ``"raise"`` (``UnfixableError`` before the request) or ``"send"`` (send it as it
            is) for what the provider's profile cannot fix.
        **completion_args: passed to every ``litellm.acompletion`` call (``api_base``, ``api_key``,
            ``temperature``, ...).

    Raises:
        TypeError: ``completion_args`` sets what the client sets itself (``model``, ``messages``, ``tools``,
            ``stream``...).
        ValueError: no ``model_info`` is given and litellm's model map does not know the model.

    Examples:
        ```python
        import asyncio

        from autogen_core.models import UserMessage

        from messages import AIMessage
        from messages.integrations.autogen import LiteLLMChatCompletionClient
        from messages.testing import StandInServer, scripted


        async def main() -> None:
            with StandInServer(scripted(AIMessage(content="Hello!"))) as server:  # offline
                client = LiteLLMChatCompletionClient(
                    "gpt-4o-mini", **server.completion_kwargs("gpt-4o-mini")
                )
                result = await client.create([UserMessage(content="Hi", source="user")])
                assert result.content == "Hello!" and result.finish_reason == "stop"


        asyncio.run(main())
        ```
    """

    component_type = "model"
    component_config_schema = LiteLLMChatCompletionClientConfig
    component_provider_override = "messages.integrations.autogen.LiteLLMChatCompletionClient"

    def __init__(
        self,
        model: str,
        *,
        model_info: ModelInfo | None = None,
        max_input_tokens: int | None = None,
        on_unfixable: OnUnfixable = "raise",
        **completion_args: Any,
    ) -> None:
        reserved = sorted(_RESERVED & completion_args.keys())
        if reserved:
            raise TypeError(f"LiteLLMChatCompletionClient sets {reserved} itself; leave them out")
        self._model = model
        self._on_unfixable: OnUnfixable = on_unfixable
        self._given_info = model_info
        self._given_max = max_input_tokens
        self._info: ModelInfo | None = model_info
        self._max_input_tokens = max_input_tokens
        self._completion_args = dict(completion_args)
        self._tokens = LiteLLMTokens(model)
        self._replies = _Replies()
        self._total = RequestUsage(prompt_tokens=0, completion_tokens=0)
        self._actual = RequestUsage(prompt_tokens=0, completion_tokens=0)

    @property
    def model(self) -> str:
        """The litellm model string."""
        return self._model

    # -- requests -----------------------------------------------------------------------------------------

    def _request(
        self,
        messages: Sequence[LLMMessage],
        tools: Sequence[Tool | ToolSchema],
        choice: Tool | Literal["auto", "required", "none"],
        json_output: bool | type[BaseModel] | None,
        extra_create_args: Mapping[str, Any],
    ) -> dict[str, Any]:
        reserved = sorted(_RESERVED & extra_create_args.keys())
        if reserved:
            raise ValueError(f"extra_create_args cannot set {reserved}: the client sets them")
        request: dict[str, Any] = {**self._completion_args, **extra_create_args}
        request["model"] = self._model
        request["messages"] = dump_messages(
            self._replies.restore(from_autogen(messages)), model=self._model, on_unfixable=self._on_unfixable
        )
        if tools:
            request["tools"] = openai_tools(tools)
            request["tool_choice"] = tool_choice(choice)
        if json_output is True:
            if not self.model_info["json_output"]:
                raise ValueError(f"{self._model} does not support JSON output (model_info['json_output'])")
            request["response_format"] = {"type": "json_object"}
        elif isinstance(json_output, type) and issubclass(json_output, BaseModel):
            request["response_format"] = json_output
        elif json_output not in (None, False):
            raise ValueError(f"json_output must be a bool or a Pydantic model class; got {json_output!r}")
        return request

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> CreateResult:
        """One reply of the model to ``messages`` (see the class docstring).

        Args:
            messages: the conversation, as AutoGen messages.
            tools: the tools the model may call (``Tool`` objects or ``ToolSchema`` dicts).
            tool_choice: ``"auto"``, ``"required"``, ``"none"``, or the one tool to call.
            json_output: ``True`` for JSON mode, a Pydantic model class for structured output.
            extra_create_args: more arguments of ``litellm.acompletion`` for this call.
            cancellation_token: cancels the request when its ``cancel()`` is called.

        Returns:
            The reply: its text (or its function calls), finish reason, usage and thought.

        Raises:
            ConversionError: a message that cannot be converted (the message index and the field named).
            UnfixableError: what the provider cannot take and its profile cannot fix, before the request
                (unless ``on_unfixable="send"``).
            ReplyError: a reply that cannot be read as an assistant message.
            ValueError: ``json_output`` asks for JSON output the model does not support, or is neither a bool
                nor a Pydantic model class; ``extra_create_args`` sets what the client sets.
            Exception: what ``litellm.acompletion`` raises (litellm's own errors: authentication, rate limits,
                the provider's 400).
        """
        request = self._request(messages, tools, tool_choice, json_output, extra_create_args)
        task = asyncio.ensure_future(_litellm.acompletion(**request))
        if cancellation_token is not None:
            cancellation_token.link_future(task)
        response = await task
        reply = AIMessage.from_litellm(response)
        self._replies.remember(reply)
        usage = _usage(getattr(response, "usage", None))
        hidden = getattr(response, "_hidden_params", None) or {}
        result = _result(reply, response.choices[0].finish_reason, usage, bool(hidden.get("cache_hit")))
        self._count_usage(usage)
        return result

    async def create_stream(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> AsyncGenerator[str | CreateResult, None]:
        """The reply's text as it arrives, then the whole reply as a ``CreateResult``.

        Args:
            messages: the AutoGen messages to answer.
            tools: as ``create`` takes them.
            tool_choice: as ``create`` takes it.
            json_output: as ``create`` takes it.
            extra_create_args: as ``create`` takes them.
            cancellation_token: cancels the request, and the stream, when cancelled.

        Yields:
            Each piece of text as it arrives, then the whole reply as a ``CreateResult``.

        Raises:
            ConversionError: a message that cannot be converted (the message index and the field named).
            UnfixableError: what the provider cannot take and its profile cannot fix, before the request
                (unless ``on_unfixable="send"``).
            ReplyError: chunks that cannot be assembled into an assistant message.
            Exception: what ``litellm.acompletion`` raises (litellm's own errors: authentication, rate limits,
                the provider's 400).
        """
        request = self._request(messages, tools, tool_choice, json_output, extra_create_args)
        request["stream"] = True
        request["stream_options"] = {"include_usage": True}
        opened = asyncio.ensure_future(_litellm.acompletion(**request))
        if cancellation_token is not None:
            cancellation_token.link_future(opened)
        stream = await opened
        accumulator = StreamAccumulator()
        chunks = stream.__aiter__()
        try:
            while True:
                step = asyncio.ensure_future(chunks.__anext__())
                if cancellation_token is not None:
                    cancellation_token.link_future(step)
                try:
                    chunk = await step
                except StopAsyncIteration:
                    break
                delta = accumulator.add(chunk)
                if delta.text:
                    yield delta.text
        finally:
            close = getattr(getattr(stream, "completion_stream", None), "aclose", None)
            if callable(close) and accumulator.finish_reason is None:
                await close()  # cut short (cancelled, or an error): free the connection now
        usage = _usage(accumulator.usage)
        reply = accumulator.message()
        self._replies.remember(reply)
        result = _result(reply, accumulator.finish_reason, usage, cached=False)
        self._count_usage(usage)
        yield result

    def _count_usage(self, usage: RequestUsage) -> None:
        self._total = _add(self._total, usage)
        self._actual = _add(self._actual, usage)

    async def close(self) -> None:
        """Nothing to close: litellm keeps its HTTP clients.

        Raises nothing.
        """

    def actual_usage(self) -> RequestUsage:
        """The tokens of the requests this client sent.

        Returns:
            The prompt and completion tokens, summed over every reply so far.

        Raises nothing.
        """
        return self._actual

    def total_usage(self) -> RequestUsage:
        """The tokens of every request this client made.

        Returns:
            The prompt and completion tokens, summed over every reply so far (the same as
            ``actual_usage``: this client has no cache of its own).

        Raises nothing.
        """
        return self._total

    # -- tokens and capabilities --------------------------------------------------------------------------

    def count_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        """The tokens of a request with ``messages`` and ``tools``, by litellm's tokenizer for the model.

        Args:
            messages: the conversation, as AutoGen messages.
            tools: the tools the request would send.

        Returns:
            The request's tokens, counted offline.

        Raises:
            ConversionError: a message AutoGen holds that this package cannot convert (the message index
                named).
        """
        return self._tokens.count(messages, tools)

    def remaining_tokens(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
    ) -> int:
        """What the model's input window leaves after ``messages`` and ``tools`` (below 0: over it).

        Args:
            messages: the conversation, as AutoGen messages.
            tools: the tools the request would send.

        Returns:
            ``max_input_tokens`` minus ``count_tokens(messages, tools=tools)``.

        Raises:
            ConversionError: a message that cannot be converted (the message index named).
            ValueError: no ``max_input_tokens`` was given and litellm's model map does not know the model's
                input window.
        """
        return self.max_input_tokens - self.count_tokens(messages, tools=tools)

    @property
    def max_input_tokens(self) -> int:
        """The model's input window: as given, else litellm's ``max_input_tokens`` for the model."""
        if self._max_input_tokens is None:
            limit = self._tokens.limit()
            if limit is None:
                raise ValueError(
                    f"litellm's model map does not know the input window of {self._model!r}: give "
                    "max_input_tokens"
                )
            self._max_input_tokens = limit
        return self._max_input_tokens

    @property
    def model_info(self) -> ModelInfo:
        """What the model can do: as given, else from litellm's model map (``family`` by the model's name)."""
        if self._info is None:
            self._info = _model_info(self._model)
        return self._info

    @property
    def capabilities(self) -> ModelCapabilities:
        """``model_info``, under the name AutoGen deprecated."""
        return self.model_info  # a ModelInfo holds every key of the older ModelCapabilities

    # -- component ----------------------------------------------------------------------------------------

    def _to_config(self) -> LiteLLMChatCompletionClientConfig:
        plain = {k: v for k, v in self._completion_args.items() if not _SECRET.search(k)}
        secret = {k: SecretStr(str(v)) for k, v in self._completion_args.items() if _SECRET.search(k)}
        return LiteLLMChatCompletionClientConfig(
            model=self._model,
            model_info=self._given_info,
            max_input_tokens=self._given_max,
            on_unfixable=self._on_unfixable,
            completion_args=plain,
            secret_args=secret,
        )

    @classmethod
    def _from_config(cls, config: LiteLLMChatCompletionClientConfig) -> Self:
        # A mask read back from JSON is no key: left out, litellm reads the key from its environment.
        secrets = {k: v.get_secret_value() for k, v in config.secret_args.items()}
        secrets = {k: v for k, v in secrets.items() if v != _MASK}
        return cls(
            config.model,
            model_info=config.model_info,
            max_input_tokens=config.max_input_tokens,
            on_unfixable=config.on_unfixable,
            **config.completion_args,
            **secrets,
        )
