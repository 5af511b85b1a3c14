"""The message classes: ``SystemMessage``, ``UserMessage``, ``AIMessage``, ``ToolMessage``, and ``ToolCall``.

Messages are frozen values. Their ``model_dump()`` and ``model_dump_json()`` emit the OpenAI Chat Completions
shape that ``litellm.completion(messages=...)`` takes as is, and nothing else:

* assistant: ``{"role": "assistant", "content": ..., "tool_calls": [{"id", "type": "function",
  "function": {"name", "arguments": <JSON string>}}]}``; ``content`` is ``null`` on a tool-call-only turn;
* tool: ``{"role": "tool", "tool_call_id": ..., "content": ...}``;
* keys whose value is unset are omitted (never ``"name": null``, never ``"tool_calls": []``).

The dump is lossless: ``Message`` validation of a dump gives back an equal message. Fields that not every
provider accepts (``name``, ``reasoning_content``, ``thinking_blocks``, ``provider_specific_fields``,
``cache_control``, a tool result's ``is_error``, a reply's ``annotations``, ``images`` and ``audio``) are
dumped under the keys litellm itself uses; the provider profiles (``messages.profiles``) remove what a
given provider rejects. Ids, timestamps and storage metadata are not message fields: a thread store keeps
them in its envelope.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, Iterable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

import pydantic_core
from pydantic import ConfigDict, Field, StrictBool, ValidationError, field_validator, with_config
from typing_extensions import TypedDict

from messages._arguments import encode_arguments
from messages._from_litellm import assistant_fields, check_not_empty
from messages._stream import StreamAssembly
from messages._wire import WireModel, check_string_keys, nest_flat
from messages.errors import ToolArgumentsError
from messages.parts import (
    AssistantPart,
    AudioPart,
    CacheControl,
    ContentPart,
    FilePart,
    ImagePart,
    TextPart,
    VideoPart,
)

__all__ = [
    "REASONING_DETAILS",
    "AIMessage",
    "AudioReference",
    "FunctionCall",
    "Message",
    "SystemMessage",
    "ToolCall",
    "ToolMessage",
    "UserMessage",
]

_PART_TYPES = (TextPart, ImagePart, AudioPart, FilePart, VideoPart)

REASONING_DETAILS = "reasoning_details"
"""The key of ``AIMessage.provider_specific_fields`` under which litellm keeps a reply's reasoning details
(OpenRouter's reasoning blocks: signed thinking, thought signatures, encrypted reasoning), and OpenRouter's
own key for them on an assistant turn sent back (the OpenRouter profile moves them there, quirk 56)."""


def lift_reasoning_details(message: dict[str, Any]) -> dict[str, Any]:
    """A dumped assistant message with the reasoning details of its ``provider_specific_fields`` moved to
    its own ``reasoning_details`` (where OpenRouter and vLLM carry them); the other provider fields stay."""
    fields = message["provider_specific_fields"]
    lifted = {k: v for k, v in message.items() if k != "provider_specific_fields"}
    rest = {k: v for k, v in fields.items() if k != REASONING_DETAILS}
    if rest:
        lifted["provider_specific_fields"] = rest
    lifted[REASONING_DETAILS] = fields[REASONING_DETAILS]
    return lifted


@with_config(ConfigDict(extra="forbid"))
class FunctionCall(TypedDict):
    """The function half of a tool call, as on the wire: ``{"name": ..., "arguments": <JSON string>}``.

    A typed dict, not a model: a conversation holds one per call, and building a model for each costs
    more than the rest of the call's validation (``python -m benchmarks stores``, loading a thread). Read
    it through ``ToolCall.name`` and ``ToolCall.arguments``.
    """

    name: Annotated[str, Field(min_length=1)]
    """The tool's name."""
    arguments: str
    """The arguments as a JSON string, byte-exact (for prompt caching, and so that invalid JSON can be
    echoed back). ``""`` means no arguments. On the wire it must be a string (quirk 6);
    ``ToolCall(arguments={...})`` serializes a mapping once."""


class ToolCall(WireModel):
    """One call of a tool by the model.

    Build it with flat keywords; the attributes ``.id``, ``.name`` and ``.arguments`` (always a string) read
    it back, and the dump nests name and arguments under ``function``, as on the wire.

    Args:
        id: the provider's id for this call; its result answers it by ``tool_call_id``.
        name: the tool's name.
        arguments: the arguments: the exact JSON string the model produced (kept byte for byte), or a
            mapping, serialized once; ``None`` or ``""`` for none.
        provider_specific_fields: opaque per-call provider data to send back to the same provider
            (Gemini's ``thought_signature``).
        function: ``{"name": ..., "arguments": ...}`` as on the wire, instead of ``name`` and
            ``arguments``.
        type: always ``"function"``.

    Raises:
        pydantic.ValidationError: a field of the wrong type, or ``arguments`` given as an object that JSON
            cannot encode.

    Examples:
        ```python
        from messages import ToolCall

        call = ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})
        assert call.arguments == '{"city":"Paris"}'  # compact JSON, kept byte for byte
        assert call.parse_arguments() == {"city": "Paris"}
        function = call.model_dump()["function"]  # nested, as on the wire
        assert function == {"name": "get_weather", "arguments": call.arguments}
        ```
    """

    id: str = Field(min_length=1)
    """The provider's id for this call; the tool result answers it by ``tool_call_id``."""
    type: Literal["function"] = "function"
    """Always ``"function"``."""
    function: FunctionCall
    """The name and arguments, nested as on the wire."""
    provider_specific_fields: dict[str, Any] | None = None
    """Opaque per-call provider data that must be sent back to the same provider (Gemini's
    ``thought_signature``); the profiles strip it for other providers."""

    _string_keys = field_validator("provider_specific_fields")(check_string_keys)

    if not TYPE_CHECKING:  # the runtime constructor; the flat keywords below are for readers

        def __init__(self, /, **data: Any) -> None:
            arguments = data.get("arguments")
            if arguments is None:
                data.pop("arguments", None)
            elif isinstance(arguments, Mapping):
                data["arguments"] = encode_arguments(arguments)
            data = nest_flat(data, "function", ("name", "arguments"), "ToolCall")
            function = data.get("function")
            if isinstance(function, Mapping) and "arguments" not in function:
                data["function"] = {**function, "arguments": ""}  # built without arguments: none
            super().__init__(**data)

        # Marked as pydantic's base __init__: validating wire dicts never comes here (see _wire.flat_init).
        __init__.__pydantic_base_init__ = True

    else:  # the flat keywords, for type checkers and the reference

        def __init__(
            self,
            *,
            id: str,
            name: str | None = None,
            arguments: str | Mapping[str, Any] | None = None,
            provider_specific_fields: Mapping[str, Any] | None = None,
            function: Mapping[str, Any] | None = None,
            type: Literal["function"] = "function",
        ) -> None: ...

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.function["name"]

    @property
    def arguments(self) -> str:
        """The arguments as the exact JSON string the model produced (``""`` for none)."""
        return self.function["arguments"]

    def parse_arguments(self) -> dict[str, Any]:
        """The arguments decoded into a dict; ``""`` (or whitespace) means no arguments.

        Returns:
            The arguments as a dict; ``{}`` for none.

        Raises ``ToolArgumentsError``, carrying the raw text, when they are not a JSON object.

        Raises:
            ToolArgumentsError: the arguments are not JSON, are nested too deeply, or decode to something
                other than an object; the raw text is in ``arguments``.
        """
        raw = self.function["arguments"]
        if not raw.strip():
            return {}
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise self._bad_arguments(f"are not valid JSON: {exc.msg} at position {exc.pos}") from None
        except RecursionError:
            raise self._bad_arguments("are nested too deeply to decode") from None
        except ValueError as exc:  # an integer literal longer than sys.get_int_max_str_digits() allows
            raise self._bad_arguments(f"cannot be decoded: {exc}") from None
        if not isinstance(value, dict):
            raise self._bad_arguments(f"decode to {type(value).__name__}, not a JSON object")
        return value

    def _bad_arguments(self, problem: str) -> ToolArgumentsError:
        return ToolArgumentsError(
            f"arguments of tool call {self.id!r} ({self.name}) {problem}; the raw text is kept in .raw",
            raw=self.function["arguments"],
            tool_call_id=self.id,
        )

    def __repr_args__(self) -> Any:
        yield "id", self.id
        yield "name", self.name
        yield "arguments", self.arguments
        if self.provider_specific_fields is not None:
            yield "provider_specific_fields", self.provider_specific_fields


class AudioReference(WireModel):
    """An audio reply of the model, by its id: ``{"id": ...}`` (OpenAI keeps the audio for a while)."""

    id: str = Field(min_length=1)
    """The id OpenAI gave the audio reply."""


class SystemMessage(WireModel):
    """Instructions for the model: ``role`` ``"system"``, or ``"developer"`` as newer OpenAI models say."""

    role: Literal["system", "developer"] = "system"
    """``"system"``; ``"developer"`` is kept as given (the profiles pick what each provider wants)."""
    content: str | list[TextPart]
    """The instructions, as a string or text parts."""
    name: str | None = None
    """An optional participant name."""
    cache_control: CacheControl | None = None
    """A prompt-cache breakpoint after this message (Anthropic through litellm; see ``messages.caching``)."""


class UserMessage(WireModel):
    """What the user said: text, or a list of text, image, audio and file parts.

    Examples:
        ```python
        from messages import ImagePart, TextPart, UserMessage

        question = UserMessage(content="What is the weather in Paris?")
        assert question.model_dump()["content"] == "What is the weather in Paris?"
        photo = ImagePart(url="https://example.com/cat.png", detail="low")
        with_image = UserMessage(content=[TextPart(text="What is this?"), photo])
        assert with_image.model_dump()["content"][1]["type"] == "image_url"
        ```
    """

    role: Literal["user"] = "user"
    """Always ``"user"``."""
    content: str | list[ContentPart]
    """A string, or content parts (``TextPart``, ``ImagePart``, ``AudioPart``, ``FilePart``,
    ``VideoPart``)."""
    name: str | None = None
    """An optional participant name."""
    cache_control: CacheControl | None = None
    """A prompt-cache breakpoint after this message (Anthropic through litellm; see ``messages.caching``)."""


def _dump_assistant(dumped: dict[str, Any]) -> dict[str, Any]:
    """Put back what ``exclude_none`` removes from an assistant dump, and drop an empty ``tool_calls``."""
    if not dumped.get("tool_calls", True):
        del dumped["tool_calls"]
    if "content" not in dumped:
        # role, content, then the rest: the order OpenAI documents and users expect to read.
        role = dumped.pop("role")
        rest = dumped.copy()
        dumped.clear()
        dumped["role"] = role
        dumped["content"] = None
        dumped.update(rest)
    return dumped


class AIMessage(WireModel):
    """A reply of the model: text, tool calls, or both; with the reasoning payloads needed to continue."""

    __wire_keep_none__ = frozenset({"content"})

    role: Literal["assistant"] = "assistant"
    """Always ``"assistant"``."""
    content: str | list[AssistantPart] | None = None
    """The reply text, or parts (text, and the image, audio and file parts litellm allows there); ``None``
    on a turn that only calls tools (dumped as ``null``)."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """The tools the model asked to call, in order; empty when it answered in text."""
    name: str | None = None
    """An optional participant name."""
    refusal: str | None = None
    """The model's refusal message, when it refused."""
    reasoning_content: str | None = None
    """The model's reasoning text (DeepSeek, and litellm's summary of Anthropic/Gemini thinking); DeepSeek
    thinking models need it sent back on tool-call turns."""
    thinking_blocks: list[dict[str, Any]] | None = None
    """Signed thinking blocks, opaque and byte-exact (Anthropic extended thinking); they must go back to the
    provider that signed them, and only there."""
    provider_specific_fields: dict[str, Any] | None = None
    """Opaque message-level provider data kept to send back to the same provider (for example Gemini text
    thought signatures)."""
    provider: str | None = None
    """The litellm provider (``"anthropic"``, ``"gemini"``, ...) that produced the provider-bound payloads of
    this message (``thinking_blocks``, provider fields); set by ``from_litellm`` only when such payloads
    exist. Profiles send those payloads back to this provider only."""
    cache_control: CacheControl | None = None
    """A prompt-cache breakpoint after this message (Anthropic through litellm; see ``messages.caching``)."""
    annotations: list[dict[str, Any]] | None = None
    """Annotations of the reply, as the provider sent them (OpenAI web search's ``url_citation``s)."""
    images: list[dict[str, Any]] | None = None
    """Images the model generated (Gemini image output, ``{"type": "image_url", "image_url": {...}}``)."""
    audio: AudioReference | None = None
    """The reference to an audio reply (OpenAI ``modalities=["audio"]``): ``{"id": ...}``, what OpenAI needs
    back on the next turn. ``from_litellm`` keeps the id, and the transcript as ``content``."""

    _string_keys = field_validator("thinking_blocks", "provider_specific_fields", "annotations", "images")(
        check_string_keys
    )

    @field_validator("thinking_blocks")
    @classmethod
    def _check_block_cache_control(cls, blocks: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        for position, block in enumerate(blocks or ()):
            marker = block.get("cache_control")
            if marker is None:
                continue
            try:
                CacheControl.model_validate(marker)
            except ValidationError as exc:
                problems = "; ".join(
                    f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}" for e in exc.errors()
                )
                raise ValueError(
                    f"thinking_blocks[{position}].cache_control must be {{'type': 'ephemeral'}} with an "
                    f"optional ttl '5m' or '1h' ({problems})"
                ) from None
        return blocks

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """The wire dict: ``content`` is always present (``null`` on a tool-call-only turn).

        Args:
            **kwargs: Pydantic's ``model_dump`` arguments; without any, the wire shape.

        Returns:
            The OpenAI-shape dict.

        Raises nothing.
        """
        dumped = super().model_dump(**kwargs)
        if kwargs and _plain_dump(kwargs):
            _dump_assistant(dumped)
        return dumped

    def model_dump_json(self, **kwargs: Any) -> str:
        """The wire JSON: ``content`` is always present (``null`` on a tool-call-only turn).

        Args:
            **kwargs: Pydantic's ``model_dump_json`` arguments; without any, the wire shape.

        Returns:
            The OpenAI-shape JSON text.

        Raises nothing.
        """
        if not _plain_dump(kwargs) or (self.content is not None and self.tool_calls):
            return super().model_dump_json(**kwargs)
        indent = kwargs.pop("indent", None)
        ensure_ascii = kwargs.pop("ensure_ascii", False)
        dumped = self.model_dump(mode="json", **kwargs)
        return pydantic_core.to_json(dumped, indent=indent, ensure_ascii=ensure_ascii).decode()

    @classmethod
    def from_litellm(cls, obj: Any, *, choice: int = 0, provider: str | None = None) -> Self:
        """Read a reply: a litellm ``ModelResponse``, ``Choices`` or ``Message``, or an OpenAI-shape dict.

        Built field by field, never by copying litellm's own dump (it carries keys that strict providers
        reject). Empty text beside tool calls (``""``, or empty text parts) becomes ``None``. ``provider``
        names who produced the reply when ``obj`` does not say (a ``ModelResponse`` does).

        Args:
            obj: what ``litellm.completion`` returned, one of its choices or messages, an OpenAI SDK
                ``ChatCompletion``, or a dict in the OpenAI shape.
            choice: which choice of a response to read (``n`` > 1).
            provider: the litellm provider that produced the reply, when ``obj`` does not say.

        Returns:
            The reply, typed: its text, tool calls and the payloads needed to continue.

        Raises ``ReplyError`` (a ``MessagesError``) naming the choice, call or field when the reply cannot
        be read: no such choice, a stream chunk, tool-call arguments that have no JSON form, an empty reply
        (no content, tool calls, refusal, reasoning, images or audio), audio without an id, or a legacy
        ``function_call`` (an ``AIMessage`` cannot hold it), which is refused rather than dropped.
        ``annotations`` (URL citations) and generated ``images`` are kept as sent; an ``audio`` reply
        keeps its id (``{"id": ...}``, sent back on the next turn) and its transcript as ``content`` when
        there is no text. Fields of the wrong
        type raise pydantic's ``ValidationError``.

        Raises:
            ReplyError: ``obj`` is not a reply (a streaming chunk, a choice that does not exist, a
                ``function_call`` with no id to answer, a tool call without a function): what is wrong named.

        Examples:
            ```python
            from messages import AIMessage

            call = {"index": 0, "id": "call_1", "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
            wire = {"role": "assistant", "content": "", "tool_calls": [call]}
            reply = AIMessage.from_litellm(wire)
            assert reply.content is None  # the "" beside the calls is no text
            assert reply.tool_calls[0].parse_arguments() == {"city": "Paris"}
            ```
        """
        fields = assistant_fields(obj, choice=choice, provider=provider)
        check_not_empty(fields, obj, choice)
        return cls.model_validate(fields)

    @classmethod
    def from_stream(cls, chunks: Iterable[Any], *, choice: int = 0, provider: str | None = None) -> Self:
        """Assemble a streamed reply from its chunks (litellm, OpenAI SDK or dicts; see ``StreamAccumulator``,
        which also keeps the stream's usage and finish reason).

        Args:
            chunks: the stream's chunks (litellm's, the OpenAI SDK's, or dicts).
            choice: which choice to assemble (``n`` > 1).
            provider: the litellm provider that produced the stream, when the chunks do not say.

        Returns:
            The whole reply.

        Raises:
            ReplyError: chunks that cannot be assembled into an assistant message (a ``function_call`` delta,
                a custom tool call).
        """
        assembly = StreamAssembly(choice=choice, provider=provider)
        for chunk in chunks:
            assembly.add(chunk)
        return cls._of(AIMessage.model_validate(assembly.reply_fields()))

    @classmethod
    async def afrom_stream(
        cls, chunks: AsyncIterable[Any], *, choice: int = 0, provider: str | None = None
    ) -> Self:
        """``from_stream`` for an async stream, e.g. ``await litellm.acompletion(..., stream=True)``.

        Args:
            chunks: the async stream's chunks (litellm's, the OpenAI SDK's, or dicts).
            choice: which choice to assemble (``n`` > 1).
            provider: the litellm provider that produced the stream, when the chunks do not say.

        Returns:
            The whole reply.

        Raises:
            ReplyError: chunks that cannot be assembled into an assistant message (a ``function_call`` delta,
                a custom tool call).
        """
        assembly = StreamAssembly(choice=choice, provider=provider)
        async for chunk in chunks:
            assembly.add(chunk)
        return cls._of(AIMessage.model_validate(assembly.reply_fields()))

    @classmethod
    def _of(cls, message: AIMessage) -> Self:
        return message if isinstance(message, cls) else cls.model_validate(message.model_dump())


def _plain_dump(kwargs: Mapping[str, Any]) -> bool:
    """Whether a dump call asked for the wire shape: ``None`` values omitted, and no option that leaves
    keys out (``include``, ``exclude``, ``exclude_unset``, ``exclude_defaults``: their dumps are pydantic's
    own, without ``role`` when it was not given)."""
    return bool(
        kwargs.get("exclude_none", True)
        and kwargs.get("include") is None
        and kwargs.get("exclude") is None
        and not kwargs.get("exclude_unset")
        and not kwargs.get("exclude_defaults")
    )


class ToolMessage(WireModel):
    """The result of one tool call, linked to it by ``tool_call_id``."""

    role: Literal["tool"] = "tool"
    """Always ``"tool"``."""
    tool_call_id: str = Field(min_length=1)
    """The ``id`` of the ``ToolCall`` this answers."""
    content: str | list[ContentPart]
    """The result: a string (JSON for structured results) or content parts."""
    name: str | None = None
    """The tool's name; not dumped to OpenAI (which rejects it), used by providers that match results by
    name. ``for_call`` leaves it unset: the call's name is found through ``tool_call_id``."""
    cache_control: CacheControl | None = None
    """A prompt-cache breakpoint after this result (Anthropic through litellm; see ``messages.caching``)."""
    is_error: StrictBool | None = None
    """Whether the tool failed (Anthropic's ``tool_result.is_error``); unset means not said."""

    @classmethod
    def for_call(cls, call: ToolCall, content: Any) -> Self:
        """The result of ``call``: a string as is, content parts as is, anything else JSON-encoded.

        Args:
            call: the call this answers.
            content: the result: a string, content parts, or anything JSON can encode (a dict, a number).

        Returns:
            The tool message, ``tool_call_id`` set to the call's id.

        Raises:
            ValueError: ``content`` is neither text, parts, nor JSON-encodable.

        Examples:
            ```python
            from messages import ToolCall, ToolMessage

            call = ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})
            result = ToolMessage.for_call(call, {"sky": "clear", "celsius": 21})
            assert result.tool_call_id == "call_1"
            assert result.content == '{"sky":"clear","celsius":21}'
            ```
        """
        if isinstance(content, str):
            text: str | list[Any] = content
        elif isinstance(content, list) and content and all(isinstance(p, _PART_TYPES) for p in content):
            text = content
        else:
            try:
                text = pydantic_core.to_json(content).decode()
            except pydantic_core.PydanticSerializationError as exc:
                raise ValueError(
                    f"the result of tool call {call.id!r} ({call.name}) is a {type(content).__name__} that "
                    f"cannot be encoded as JSON ({exc}); convert it to a string first"
                ) from None
        return cls(tool_call_id=call.id, content=text)


Message = Annotated[SystemMessage | UserMessage | AIMessage | ToolMessage, Field(discriminator="role")]
"""Any message, told apart by its ``role``: ``TypeAdapter(list[Message])`` reads OpenAI-shape dicts."""
