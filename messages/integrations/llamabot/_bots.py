"""``SimpleBot`` and ``AsyncSimpleBot``: llamabot's bots, sending the package's dump of the conversation.

llamabot builds each request in ``completion_kwargs_for_messages``, which keeps ``role`` and ``content``
of every message (its design note CORE-SIMPLE-003) and has no hook: an assistant turn's ``tool_calls``
and a result's ``tool_call_id`` never reach the provider, and the second turn of a tool call is refused
(llamabot #275). These subclasses keep everything else of llamabot's bots (the constructor, the spans and
their fields, the message log, the memory protocol, the return value) and build the request themselves:
the system prompt, the memory's history and the new messages as messages of this package, dumped by
``dump_messages(..., model=model_name)`` (the tool-call protocol checked, the provider's profile applied)
and sent through litellm, the reply read with ``AIMessage.from_litellm`` (or ``StreamAccumulator``).

They take llamabot's messages and this package's alike, and strings (a user's text); a llamabot
``ToolMessage`` (which has no ``tool_call_id``) answers the next unanswered call of the conversation's
latest turn. They return llamabot's ``AIMessage``, as llamabot's bots do: its ``tool_calls`` are litellm's
``ChatCompletionMessageToolCall`` objects, with the ids the results answer.

With a ``ThreadStoreChatMemory`` the history is read as the package's messages (ids and all) and the whole
turn (the new messages and the reply) is appended at once; any other memory (llamabot's ``ChatMemory``) is
used as llamabot uses it, its messages read back with ``messages.convert.llamabot`` (results at the start
of its window, whose calls the window cut off, left out).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator, Iterable, Mapping, Sequence
from typing import Any

from llamabot.bot.simplebot import AsyncSimpleBot as LlamabotAsyncSimpleBot
from llamabot.bot.simplebot import SimpleBot as LlamabotSimpleBot
from llamabot.bot.simplebot import model_supports_token_streaming
from llamabot.components.messages import AIMessage as LlamabotAIMessage
from llamabot.components.messages import BaseMessage as LlamabotMessage
from llamabot.config import configured_litellm
from llamabot.recorder import Span, get_caller_variable_name, get_current_span, sqlite_log
from pydantic import BaseModel

from messages._io import dump_messages
from messages.convert.llamabot import _litellm_calls, from_llamabot, to_llamabot
from messages.errors import ConversionError, InvalidArgumentError, MessageTypeError
from messages.integrations.llamabot._memory import ThreadStoreChatMemory, _open_calls, convert_incoming
from messages.models import AIMessage, Message, SystemMessage, ToolMessage, UserMessage
from messages.parts import TextPart
from messages.streaming import StreamAccumulator

__all__ = ["AsyncSimpleBot", "SimpleBot"]

_MESSAGE_TYPES = (SystemMessage, UserMessage, AIMessage, ToolMessage)


def _flatten(items: Iterable[Any]) -> list[Any]:
    """The inputs of a bot call, nested lists flattened, as llamabot's ``to_basemessage`` reads them;
    anything that is not a message or a string is a user's text (``str``), as there, but a dict."""
    out: list[Any] = []
    for item in items:
        if isinstance(item, list):
            out.extend(_flatten(item))
        elif isinstance(item, Mapping):
            raise MessageTypeError(
                "a bot takes messages (of this package or of llamabot) and strings, not a dict; read "
                "OpenAI-shape dicts with messages.load_messages() first"
            )
        elif isinstance(item, (*_MESSAGE_TYPES, LlamabotMessage, str)):
            out.append(item)
        else:
            out.append(str(item))
    return out


def _text_of(message: Message) -> str:
    content = message.content
    if isinstance(content, list):
        return "".join(part.text for part in content if isinstance(part, TextPart))
    return content or ""


def _for_log(messages: Sequence[Message]) -> list[Any]:
    """The turn as llamabot's message log takes it (role, content, tool calls): llamabot's messages, or a
    ``BaseMessage`` with the content's JSON where llamabot's messages have no form for it."""
    out = []
    for message in messages:
        try:
            (converted,) = to_llamabot([message])
        except ConversionError:
            content = message.content
            text = (
                content
                if isinstance(content, str)
                else json.dumps(message.model_dump(mode="json")["content"])
            )
            converted = LlamabotMessage(role=message.role, content=text or "")
        out.append(converted)
    return out


def _answer(reply: AIMessage) -> Any:
    """The reply as llamabot's ``AIMessage``: its text (``""`` for none) and its calls as litellm's
    objects, as llamabot's bots return it."""
    return LlamabotAIMessage(content=_text_of(reply), tool_calls=_litellm_calls(reply))


class _Native:
    """What ``SimpleBot`` and ``AsyncSimpleBot`` share, without I/O: composing the conversation, building
    the request, recording the spans, reading the reply. The attributes are llamabot's ``SimpleBot``'s."""

    system_prompt: Any
    model_name: str
    temperature: float
    memory: Any
    stream_target: str
    json_mode: bool
    api_key: str | None
    mock_response: str | None
    completion_kwargs: dict[str, Any]
    _trace_ids: list[str]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "chat_memory" in kwargs:
            raise InvalidArgumentError(
                f"{type(self).__name__}(): the memory is memory=, not chat_memory= (llamabot's SimpleBot "
                "sends every keyword it does not know to litellm, as a request parameter)",
                argument="chat_memory",
            )
        super().__init__(*args, **kwargs)

    def _system(self) -> list[Message]:
        (typed,), _ = from_llamabot([self.system_prompt], envelopes=True)
        return [typed]

    def _query(self, items: Sequence[Any]) -> str:
        return " ".join(item.content if hasattr(item, "content") else str(item) for item in items)

    def _foreign_history(self, retrieved: Iterable[Any]) -> list[Message]:
        """What a memory that is not a ``ThreadStoreChatMemory`` retrieved, as messages of this package:
        results at the start (their calls are before the memory's window) left out."""
        items = list(retrieved)
        start = 0
        while start < len(items) and getattr(items[start], "role", None) == "tool":
            start += 1
        return [typed for typed, _ in convert_incoming(_flatten(items[start:]), [])]

    def _inputs(self, human_messages: Sequence[Any], history: Sequence[Message]) -> list[Message]:
        items = _flatten(human_messages)
        inputs = [typed for typed, _ in convert_incoming(items, _open_calls(history, True) or [])]
        if self.memory is not None and not isinstance(self.memory, ThreadStoreChatMemory):
            to_llamabot(inputs[-1:])  # what a llamabot memory is given: refused now, before the request
        return inputs

    def _retrieve_query(self, human_messages: Sequence[Any]) -> str:
        """The query llamabot's bots give a memory's ``retrieve``."""
        texts = [item.content if hasattr(item, "content") else str(item) for item in _flatten(human_messages)]
        return f"From our conversation history, give me the most relevant information to the query, {texts}"

    def _request(self, conversation: Sequence[Message], stream: bool) -> dict[str, Any]:
        """The keyword arguments of ``litellm.completion``: llamabot's, with the package's dump."""
        request: dict[str, Any] = {
            "model": self.model_name,
            "messages": dump_messages(conversation, self.model_name),
            "temperature": self.temperature,
            "stream": stream,
        }
        request.update(self.completion_kwargs)
        if self.mock_response:
            request["mock_response"] = self.mock_response
        if self.json_mode:
            model = getattr(self, "pydantic_model", None)
            if model is None:
                raise ValueError("Please set a pydantic_model for this bot to use JSON mode!")
            if not (isinstance(model, type) and issubclass(model, BaseModel)):
                raise ValueError("pydantic_model must be a Pydantic BaseModel class")
            request["response_format"] = model
        if self.api_key:
            request["api_key"] = self.api_key
        if hasattr(self, "tools"):
            request["tools"] = self.tools
            request["tool_choice"] = getattr(self, "tool_choice", "auto")
        return request

    def _outer_span(self, operation_name: str | None, human_messages: Sequence[Any]) -> Any:
        """The span of one call, as llamabot's ``SimpleBot`` opens it: a child of the current span, or the
        root of a new trace."""
        attributes = {
            "query": self._query(human_messages),
            "model": self.model_name,
            "temperature": self.temperature,
        }
        name = operation_name or "simplebot_call"
        current = get_current_span()
        if current:
            span = Span(name, trace_id=current.trace_id, parent_span_id=current.span_id, **attributes)
        else:
            span = Span(name, trace_id=str(uuid.uuid4()), **attributes)
        if span.trace_id not in self._trace_ids:
            self._trace_ids.append(span.trace_id)
        return span

    def _llm_span(self) -> Any:
        current = get_current_span()
        if current:
            return current.span("llm_request", model=self.model_name)
        return Span("llm_request", model=self.model_name)

    def _record_inputs(self, span: Any, conversation: Sequence[Message], inputs: Sequence[Message]) -> None:
        span["input_message_count"] = len(conversation)
        span["input_user_messages"] = sum(isinstance(m, UserMessage) for m in conversation)
        span["input_assistant_messages"] = sum(isinstance(m, AIMessage) for m in conversation)
        span["temperature"] = self.temperature
        span["query"] = " ".join(_text_of(m) for m in inputs)[:500]

    def _record_reply(self, span: Any, reply: AIMessage) -> None:
        text = _text_of(reply)
        span["response_length"] = len(text)
        span["response"] = text[:500] if text else None
        span["tool_calls_count"] = len(reply.tool_calls)
        if reply.tool_calls:
            span["tool_calls"] = ", ".join(call.name for call in reply.tool_calls)

    def _log(self, conversation: Sequence[Message], reply: AIMessage) -> None:
        sqlite_log(self, _for_log([*conversation, reply]))

    def _foreign_turn(self, inputs: Sequence[Message], reply: AIMessage) -> list[Any]:
        """What a llamabot memory is given after a turn, as llamabot's bots give it: the last new message
        and the reply."""
        return [*to_llamabot(inputs[-1:]), _answer(reply)]


class SimpleBot(_Native, LlamabotSimpleBot):  # type: ignore[misc]
    """llamabot's ``SimpleBot``, sending the conversation as this package dumps it.

    Made as llamabot's (``SimpleBot(system_prompt, model_name=..., memory=..., tools=[...], ...)``: every
    argument is llamabot's), and called as llamabot's, with llamabot's messages, this package's, or
    strings. The request holds every message whole (an assistant turn's ``tool_calls``, a result's
    ``tool_call_id``), is checked for the tool-call protocol and adjusted by the model's provider profile
    (``dump_messages(..., model=model_name)``) before it is sent; llamabot's spans and message log record
    the call as llamabot's ``SimpleBot`` records it.

    Args:
        *args: llamabot's ``SimpleBot`` positional arguments (``system_prompt``, ``temperature``,
            ``memory``, ``model_name``, ..., in llamabot's order).
        **kwargs: llamabot's ``SimpleBot`` keyword arguments (``model_name``, ``memory``,
            ``stream_target``, ``mock_response``, ...); the keywords llamabot does not know go to
            ``litellm.completion``.

    Raises:
        ValueError: ``stream_target`` is not one of llamabot's (``stdout``, ``panel``, ``api``,
            ``none``).
        InvalidArgumentError: ``chat_memory=`` is given (llamabot's ``SimpleBot`` takes ``memory=`` and
            would send ``chat_memory`` to litellm as a request parameter, as its ``llamabot chat`` does).

    Examples:
        >>> from messages import InMemoryThreadStore
        >>> from messages.integrations.llamabot import ThreadStoreChatMemory
        >>> bot = SimpleBot(
        ...     "You are terse.",
        ...     model_name="openai/gpt-4o-mini",
        ...     memory=ThreadStoreChatMemory(InMemoryThreadStore()),
        ...     stream_target="none",
        ...     mock_response="Hello!",
        ... )
        >>> bot("Hi").content
        'Hello!'
    """

    def __call__(self, *human_messages: Any) -> Any:
        """Send the system prompt, the memory's history and ``human_messages``; return the reply as
        llamabot's ``AIMessage`` (its tool calls as litellm's objects), after appending the turn to the
        memory.

        Args:
            human_messages: Messages of this package or of llamabot, strings, or lists of them.

        Returns:
            The reply, as llamabot's ``AIMessage``.

        Raises:
            MessageTypeError: an input is a dict (read it with ``load_messages``).
            ConversionError: a llamabot input this package cannot hold (a ``ToolMessage`` with no call left
                to answer), or, with a memory that is not a ``ThreadStoreChatMemory``, an input a llamabot
                memory cannot hold.
            ConversationError: the conversation breaks the tool-call protocol (a result for a call that
                was not made, a call left unanswered); nothing is sent.
            ReplyError: the reply cannot be read (an empty reply).

        And what ``litellm.completion`` raises, and what the memory's reads and appends raise.
        """
        operation_name = get_caller_variable_name(self)
        outer = self._outer_span(operation_name, human_messages)
        with outer:
            with outer.span("compose_messages") as compose:
                history = self._history(human_messages)
                inputs = self._inputs(human_messages, history)
                conversation = [*self._system(), *history, *inputs]
                self._record_inputs(outer, conversation, inputs)
                compose["num_messages"] = len(conversation)
            stream = self.stream_target != "none"
            request = self._request(conversation, stream)
            with self._llm_span() as llm:
                llm["num_messages"] = len(conversation)
                llm["stream"] = stream
                response = configured_litellm().completion(**request)
            with outer.span("stream_response") as streamed:
                reply = self._read_reply(response, stream)
                streamed["streamed"] = stream
            with outer.span("process_response") as processed:
                answer = _answer(reply)
                processed["content_length"] = len(answer.content)
            self._record_reply(outer, reply)
            self._log(conversation, reply)
            self._remember(inputs, reply)
            return answer

    def _history(self, human_messages: Sequence[Any]) -> list[Message]:
        memory = self.memory
        if memory is None:
            return []
        if isinstance(memory, ThreadStoreChatMemory):
            return memory.read()
        return self._foreign_history(memory.retrieve(query=self._retrieve_query(human_messages)))

    def _send(self, conversation: Sequence[Message]) -> AIMessage:
        """Send ``conversation`` (not streamed) and read the reply: the model call of a decide step."""
        request = self._request(conversation, stream=False)
        with self._llm_span() as llm:
            llm["num_messages"] = len(conversation)
            llm["stream"] = False
            response = configured_litellm().completion(**request)
        return AIMessage.from_litellm(response)

    def _read_reply(self, response: Any, stream: bool) -> AIMessage:
        if not stream:
            return AIMessage.from_litellm(response)
        accumulator = StreamAccumulator()
        for chunk in response:
            delta = accumulator.add(chunk)
            if self.stream_target == "stdout" and delta.text:
                print(delta.text, end="")
        return accumulator.message()

    def _remember(self, inputs: Sequence[Message], reply: AIMessage) -> None:
        memory = self.memory
        if memory is None:
            return
        if isinstance(memory, ThreadStoreChatMemory):
            memory.append([*inputs, reply])
            return
        for message in self._foreign_turn(inputs, reply):
            memory.append(message)


class AsyncSimpleBot(_Native, LlamabotAsyncSimpleBot):  # type: ignore[misc]
    """llamabot's ``AsyncSimpleBot``, sending the conversation as this package dumps it: ``SimpleBot`` of
    this subpackage, awaited (``await bot(...)``, ``bot.stream_async(...)``), through ``litellm.acompletion``.

    A ``ThreadStoreChatMemory`` is read and appended to with its async methods (an async store awaited, a
    sync one in a worker thread); another memory as llamabot's ``AsyncSimpleBot`` uses it.

    Args:
        *args: llamabot's ``AsyncSimpleBot`` positional arguments (``system_prompt``, ...).
        **kwargs: llamabot's ``AsyncSimpleBot`` keyword arguments (``model_name``, ``memory``, ...); the
            keywords llamabot does not know go to ``litellm.acompletion``.

    Raises:
        ValueError: ``stream_target`` is not one of llamabot's.
        InvalidArgumentError: ``chat_memory=`` is given (the memory is ``memory=``).
    """

    async def __call__(self, *human_messages: Any) -> Any:
        """``SimpleBot.__call__``, awaited: the reply is streamed (as llamabot's ``AsyncSimpleBot`` streams
        it, for every model but o1-preview and o1-mini), its text printed with ``stream_target="stdout"``.

        Args:
            human_messages: Messages of this package or of llamabot, strings, or lists of them.

        Returns:
            The reply, as llamabot's ``AIMessage``.

        Raises what ``SimpleBot.__call__`` raises, with ``litellm.acompletion`` and the memory's async
        methods.
        """
        operation_name = get_caller_variable_name(self)
        outer = self._outer_span(operation_name, human_messages)
        with outer:
            history = await self._ahistory(human_messages)
            inputs = self._inputs(human_messages, history)
            conversation = [*self._system(), *history, *inputs]
            self._record_inputs(outer, conversation, inputs)
            reply = None
            async for delta in self._deltas(conversation):
                if isinstance(delta, AIMessage):
                    reply = delta
                elif self.stream_target == "stdout":
                    print(delta, end="")
            assert reply is not None
            self._record_reply(outer, reply)
            self._log(conversation, reply)
            await self._aremember(inputs, reply)
            return _answer(reply)

    async def stream_async(self, *human_messages: Any) -> AsyncGenerator[str, None]:
        """The reply's text as it arrives (same inputs as ``__call__``); the turn is appended to the memory
        and logged once the stream is over.

        Args:
            human_messages: Messages of this package or of llamabot, strings, or lists of them.

        Yields:
            The reply's text, piece by piece.

        Raises what ``__call__`` raises.
        """
        history = await self._ahistory(human_messages)
        inputs = self._inputs(human_messages, history)
        conversation = [*self._system(), *history, *inputs]
        reply = None
        async for delta in self._deltas(conversation):
            if isinstance(delta, AIMessage):
                reply = delta
            else:
                yield delta
        assert reply is not None
        self._log(conversation, reply)
        await self._aremember(inputs, reply)

    async def _deltas(self, conversation: Sequence[Message]) -> AsyncGenerator[str | AIMessage, None]:
        """Send the conversation; yield the reply's text as it arrives, then the reply."""
        stream = model_supports_token_streaming(self.model_name)
        request = self._request(conversation, stream)
        with self._llm_span() as llm:
            llm["num_messages"] = len(conversation)
            llm["stream"] = stream
            response = await configured_litellm().acompletion(**request)
        if not stream:
            reply = AIMessage.from_litellm(response)
            if _text_of(reply):
                yield _text_of(reply)
            yield reply
            return
        accumulator = StreamAccumulator()
        async for chunk in response:
            delta = accumulator.add(chunk)
            if delta.text:
                yield delta.text
        yield accumulator.message()

    async def _ahistory(self, human_messages: Sequence[Any]) -> list[Message]:
        memory = self.memory
        if memory is None:
            return []
        if isinstance(memory, ThreadStoreChatMemory):
            return await memory.aread()
        return self._foreign_history(memory.retrieve(query=self._retrieve_query(human_messages)))

    async def _asend(self, conversation: Sequence[Message]) -> AIMessage:
        """``SimpleBot._send``, awaited."""
        request = self._request(conversation, stream=False)
        with self._llm_span() as llm:
            llm["num_messages"] = len(conversation)
            llm["stream"] = False
            response = await configured_litellm().acompletion(**request)
        return AIMessage.from_litellm(response)

    async def _aremember(self, inputs: Sequence[Message], reply: AIMessage) -> None:
        memory = self.memory
        if memory is None:
            return
        if isinstance(memory, ThreadStoreChatMemory):
            await memory.aappend([*inputs, reply])
            return
        for message in self._foreign_turn(inputs, reply):
            memory.append(message)
