"""Messages to a pydantic-ai message history and back (``pip install 'llm-messages[pydantic-ai]'``).

pydantic-ai keeps a conversation as ``ModelRequest`` and ``ModelResponse`` objects, each a list of parts.
``to_pydantic_ai`` puts each run of system, user and tool messages in one ``ModelRequest``, one part per
message, and each ``AIMessage`` in one ``ModelResponse``:

=====================  ==================================================================================
ours                   pydantic-ai (``pydantic_ai.messages``)
=====================  ==================================================================================
``SystemMessage``      ``SystemPromptPart`` (string content)
``UserMessage``        ``UserPromptPart``: a string, or a list of strings, ``ImageUrl`` (an https image),
                       ``BinaryContent`` (a data-URL image, audio, an inline file named by its
                       ``identifier``) and ``UploadedFile`` (a file id); an image's ``detail`` in
                       ``vendor_metadata["detail"]``, where pydantic-ai's OpenAI model reads it
``ToolMessage``        ``ToolReturnPart`` named after its call (``tool_name``)
``AIMessage``          ``ModelResponse``: ``ThinkingPart`` for ``reasoning_content`` (no signature) and
                       for each thinking block (its signature; a redacted block as ``id
                       "redacted_thinking"``), then one ``TextPart`` for the text (several for several
                       parts), then a ``ToolCallPart`` per call with the arguments as the exact string;
                       ``provider`` as ``provider_name``; provider fields of the message or of a call in
                       ``provider_details["provider_specific_fields"]``
=====================  ==================================================================================

``from_pydantic_ai(to_pydantic_ai(c)) == c`` for what pydantic-ai can hold, with one reading: a tool
result's ``name`` equal to its call's name reads back unset (``tool_name`` is always there, and says the
same). What it cannot hold raises ``ConversionError`` naming the message and the field: a ``name`` on a
system, user or assistant message, a ``developer`` role, system text as parts, an assistant ``refusal``,
assistant text as a single part or an empty list, thinking blocks of another shape, a data URL that does
not decode to the same base64.

``from_pydantic_ai`` reads what pydantic-ai agents record: ``RetryPromptPart`` with a tool name becomes a
tool result holding the retry text exactly as pydantic-ai sends it to the model (``model_response()``,
"... Fix the errors and try again."), and one without becomes a user message with that text, as
pydantic-ai sends it; a ``ToolReturnPart`` whose content is not a string is JSON as pydantic-ai sends it
(``model_response_str()``); a request's ``instructions`` become a leading system message (pydantic-ai
sends them first). Timestamps, usage, model names, finish reasons, part and response ids are bookkeeping of
the run, not message content, and are not kept. A part this package has no message for (a file the model
generated, a built-in tool's call or return, a cache point, a video) raises ``ConversionError``.

pydantic-ai is imported inside the functions, never by ``import messages``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from messages.errors import ConversionError
from messages.models import AIMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages.parts import AudioPart, ContentPart, FilePart, ImagePart, TextPart
from messages.protocol import check_types

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

__all__ = ["from_pydantic_ai", "to_pydantic_ai"]

from messages.convert._guard import refuse_unmapped

_HAS_IS_ERROR = "is_error" in ToolMessage.model_fields
_FIELDS = "provider_specific_fields"
_AUDIO_TYPES = {"wav": "audio/wav", "mp3": "audio/mpeg"}


def _import() -> Any:
    try:
        import pydantic_ai.messages as pai
    except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
        raise ImportError(
            "messages.convert's pydantic-ai converters need pydantic-ai-slim: "
            "pip install 'llm-messages[pydantic-ai]'"
        ) from exc
    return pai


def _error(index: int, part: int | str | None, what: str, noun: str = "message") -> ConversionError:
    where = f"{noun} {index}" if not isinstance(part, int) else f"{noun} {index}, content part {part}"
    return ConversionError(f"{where}: {what}", index=index, part=part)


# --- to pydantic-ai ------------------------------------------------------------------------------------


def _decode_data_url(url: str, index: int, position: int) -> tuple[bytes, str]:
    head, _, data = url.partition(",")
    if not head.startswith("data:") or not head.endswith(";base64"):
        raise _error(index, position, "a data URL that is not base64, which BinaryContent cannot hold")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise _error(index, position, "a data URL whose base64 does not decode") from None
    if base64.b64encode(raw).decode("ascii") != data:
        raise _error(
            index, position, "a data URL whose base64 is not in the canonical form it would come back in"
        )
    return raw, head[5 : -len(";base64")]


def _user_item(pai: Any, part: ContentPart, index: int, position: int) -> Any:
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, ImagePart):
        image = part.image_url
        assert not isinstance(image, str)  # refused before (refuse_unmapped)
        meta = {"detail": image.detail} if image.detail is not None else None
        if image.url.startswith("data:"):
            raw, media = _decode_data_url(image.url, index, position)
            return pai.BinaryContent(data=raw, media_type=media, vendor_metadata=meta)
        return pai.ImageUrl(url=image.url, vendor_metadata=meta)
    if isinstance(part, AudioPart):
        audio_type = _AUDIO_TYPES.get(part.format)
        if audio_type is None:
            raise _error(
                index, position, f"audio in format {part.format!r}, which pydantic-ai has no type for"
            )
        raw, _ = _decode_data_url(f"data:{audio_type};base64,{part.data}", index, position)
        return pai.BinaryContent(data=raw, media_type=audio_type)
    assert isinstance(part, FilePart)  # a video part is refused before (refuse_unmapped)
    file = part.file
    if file.file_data is not None:
        if file.file_id is not None:
            raise _error(index, position, "a file with both file_data and file_id")
        raw, media = _decode_data_url(file.file_data, index, position)
        return pai.BinaryContent(data=raw, media_type=media, identifier=file.filename)
    return pai.UploadedFile(file_id=file.file_id, provider_name="openai", identifier=file.filename)


def _user_content(pai: Any, content: str | Sequence[ContentPart], index: int) -> Any:
    if isinstance(content, str):
        return content
    return [_user_item(pai, part, index, position) for position, part in enumerate(content)]


def _no_name(message: Message, index: int) -> None:
    if message.name is not None:
        raise _error(index, "name", f"pydantic-ai has no participant name ({message.name!r}) on this message")


def _thinking(pai: Any, message: AIMessage, index: int) -> list[Any]:
    parts = []
    if message.reasoning_content is not None:
        parts.append(pai.ThinkingPart(content=message.reasoning_content))
    for block in message.thinking_blocks or []:
        if block.get("type") == "thinking" and set(block) == {"type", "thinking", "signature"}:
            parts.append(
                pai.ThinkingPart(
                    content=block["thinking"], signature=block["signature"], provider_name=message.provider
                )
            )
        elif block.get("type") == "redacted_thinking" and set(block) == {"type", "data"}:
            parts.append(
                pai.ThinkingPart(
                    content="",
                    id="redacted_thinking",
                    signature=block["data"],
                    provider_name=message.provider,
                )
            )
        else:
            raise _error(
                index,
                "thinking_blocks",
                f"a thinking block of a shape ThinkingPart cannot hold ({sorted(block)})",
            )
    return parts


def _response(pai: Any, message: AIMessage, index: int) -> Any:
    _no_name(message, index)
    if message.refusal is not None:
        raise _error(index, "refusal", "pydantic-ai has no refusal on a response; put it in content")
    parts = _thinking(pai, message, index)
    if isinstance(message.content, str):
        parts.append(pai.TextPart(content=message.content))
    elif message.content is not None:
        if len(message.content) < 2:
            raise _error(
                index,
                "content",
                "assistant text as a single part or none: pydantic-ai holds it the way it holds a string or "
                "no text; give a string or None",
            )
        parts.extend(pai.TextPart(content=t.text) for t in message.content if isinstance(t, TextPart))
    for call in message.tool_calls:
        details = (
            {_FIELDS: call.provider_specific_fields} if call.provider_specific_fields is not None else None
        )
        parts.append(
            pai.ToolCallPart(
                tool_name=call.name, args=call.arguments, tool_call_id=call.id, provider_details=details
            )
        )
    details = (
        {_FIELDS: message.provider_specific_fields} if message.provider_specific_fields is not None else None
    )
    return pai.ModelResponse(parts=parts, provider_name=message.provider, provider_details=details)


def to_pydantic_ai(messages: Iterable[Message]) -> list[ModelMessage]:
    """The messages as a pydantic-ai history (see the table in this module's docstring). Raises
    ``MessageTypeError`` for an item that is not a message, and ``ConversionError`` naming the message and
    the field for what pydantic-ai cannot hold.

    Args:
        messages: messages of this package, in order.

    Returns:
        A pydantic-ai history (``ModelRequest`` and ``ModelResponse`` objects).

    Raises:
        MessageTypeError: an item is not a ``Message``.
        ConversionError: something pydantic-ai's messages cannot hold (a participant ``name``, a cache mark):
            the message index and the field named.
        ImportError: pydantic-ai-slim is not installed (``pip install 'llm-messages[pydantic-ai]'``).
    """
    pai = _import()
    conversation = list(messages)
    check_types(conversation)
    refuse_unmapped(conversation, "pydantic-ai")
    history: list[Any] = []
    request: list[Any] = []
    names: dict[str, str] = {}  # tool-call id -> name, for the tool results
    for index, message in enumerate(conversation):
        if isinstance(message, AIMessage):
            if request:
                history.append(pai.ModelRequest(parts=request))
                request = []
            history.append(_response(pai, message, index))
            names.update((call.id, call.name) for call in message.tool_calls)
        elif isinstance(message, SystemMessage):
            _no_name(message, index)
            if message.role == "developer":
                raise _error(
                    index, "role", "pydantic-ai has no developer role; its system prompts are system"
                )
            if not isinstance(message.content, str):
                raise _error(index, "content", "system text as parts: a SystemPromptPart holds one string")
            request.append(pai.SystemPromptPart(content=message.content))
        elif isinstance(message, UserMessage):
            _no_name(message, index)
            request.append(pai.UserPromptPart(content=_user_content(pai, message.content, index)))
        else:
            tool_name = message.name or names.get(message.tool_call_id)
            if tool_name is None:
                raise _error(
                    index,
                    "name",
                    f"the result of {message.tool_call_id!r} answers no earlier call and has no name, and a "
                    "ToolReturnPart needs the tool's name",
                )
            if _HAS_IS_ERROR and getattr(message, "is_error", False):
                content: Any = message.content if isinstance(message.content, str) else None
                if content is None:
                    raise _error(index, "content", "an error result with parts: a RetryPromptPart holds text")
                request.append(
                    pai.RetryPromptPart(
                        content=content, tool_name=tool_name, tool_call_id=message.tool_call_id
                    )
                )
                continue
            request.append(
                pai.ToolReturnPart(
                    tool_name=tool_name,
                    content=_user_content(pai, message.content, index),
                    tool_call_id=message.tool_call_id,
                )
            )
    if request:
        history.append(pai.ModelRequest(parts=request))
    return history


# --- from pydantic-ai ----------------------------------------------------------------------------------


def _part_from(pai: Any, item: Any, index: int, where: str, position: int) -> ContentPart:
    if isinstance(item, str):
        return TextPart(text=item)
    meta = getattr(item, "vendor_metadata", None) or {}
    extra = set(meta) - {"detail"}
    if extra:
        raise _item_error(
            index, where, position, f"vendor_metadata keys {sorted(extra)}, which no part holds"
        )
    if isinstance(item, pai.ImageUrl):
        return ImagePart(url=item.url, detail=meta.get("detail"))
    if isinstance(item, pai.BinaryContent):
        data = base64.b64encode(item.data).decode("ascii")
        if item.is_image:
            return ImagePart(url=f"data:{item.media_type};base64,{data}", detail=meta.get("detail"))
        if item.is_audio and not meta:
            fmt = {v: k for k, v in _AUDIO_TYPES.items()}.get(item.media_type)
            if fmt is not None:
                return AudioPart(data=data, format=fmt)
        if item.is_document and not meta:
            filename = getattr(item, "_identifier", None) or f"{item.identifier}.{item.format}"
            return FilePart(file_data=f"data:{item.media_type};base64,{data}", filename=filename)
    if isinstance(item, pai.UploadedFile) and not meta:
        return FilePart(file_id=item.file_id, filename=getattr(item, "_identifier", None))
    kind = getattr(item, "kind", type(item).__name__)
    raise _item_error(index, where, position, f"a {kind!r} content item, which no part of this package holds")


def _item_error(index: int, where: str, position: int, what: str) -> ConversionError:
    return ConversionError(f"{where}, content item {position}: {what}", index=index, part=position)


def _content_from(pai: Any, content: Any, index: int, part: int) -> Any:
    if isinstance(content, str):
        return content
    where = f"request {index}, part {part}"
    return [_part_from(pai, item, index, where, position) for position, item in enumerate(content)]


def _request(pai: Any, request: Any, index: int, out: list[Message], calls: dict[str, str]) -> None:
    for position, part in enumerate(request.parts):
        if isinstance(part, pai.SystemPromptPart):
            out.append(SystemMessage(content=part.content))
        elif isinstance(part, pai.UserPromptPart):
            out.append(UserMessage(content=_content_from(pai, part.content, index, position)))
        elif isinstance(part, pai.ToolReturnPart):
            content = part.content
            if not isinstance(content, str):
                is_items = isinstance(content, list) and all(
                    isinstance(c, (str, pai.ImageUrl, pai.BinaryContent, pai.UploadedFile)) for c in content
                )
                content = (
                    _content_from(pai, content, index, position) if is_items else part.model_response_str()
                )
            fields: dict[str, Any] = {"tool_call_id": part.tool_call_id, "content": content}
            if part.tool_name != calls.get(part.tool_call_id):
                fields["name"] = part.tool_name
            if part.outcome != "success":
                if not _HAS_IS_ERROR:
                    raise _error(
                        index,
                        "outcome",
                        f"part {position} is a tool return whose outcome is {part.outcome!r}, which a "
                        "ToolMessage cannot mark yet",
                        "request",
                    )
                fields["is_error"] = True
            out.append(ToolMessage.model_validate(fields))
        elif isinstance(part, pai.RetryPromptPart):
            if part.tool_name is None:
                out.append(UserMessage(content=part.model_response()))
                continue
            fields = {"tool_call_id": part.tool_call_id}
            if part.tool_name != calls.get(part.tool_call_id):
                fields["name"] = part.tool_name
            if _HAS_IS_ERROR:
                fields["is_error"] = True
                fields["content"] = part.content if isinstance(part.content, str) else part.model_response()
            else:
                # Until a ToolMessage can mark an error, the text pydantic-ai sends says it.
                fields["content"] = part.model_response()
            out.append(ToolMessage.model_validate(fields))
        else:
            kind = getattr(part, "part_kind", type(part).__name__)
            raise _error(
                index, position, f"a {kind!r} part, which no message of this package holds", "request"
            )


def _response_from(pai: Any, response: Any, index: int) -> AIMessage:
    reasoning: list[str] = []
    blocks: list[dict[str, Any]] = []
    texts: list[str] = []
    calls: list[ToolCall] = []
    for position, part in enumerate(response.parts):
        if isinstance(part, pai.ThinkingPart):
            if part.id == "redacted_thinking" and part.signature is not None:
                blocks.append({"type": "redacted_thinking", "data": part.signature})
            elif part.signature is not None:
                blocks.append({"type": "thinking", "thinking": part.content, "signature": part.signature})
            else:
                reasoning.append(part.content)
        elif isinstance(part, pai.TextPart):
            texts.append(part.content)
        elif isinstance(part, pai.ToolCallPart):
            args = part.args
            details = part.provider_details or {}
            calls.append(
                ToolCall(
                    id=part.tool_call_id,
                    name=part.tool_name,
                    arguments=args if isinstance(args, str) else (args or ""),
                    provider_specific_fields=details.get(_FIELDS),
                )
            )
        else:
            kind = getattr(part, "part_kind", type(part).__name__)
            raise _error(
                index, position, f"a {kind!r} part, which no message of this package holds", "response"
            )
    if len(reasoning) > 1:
        raise _error(
            index,
            "reasoning_content",
            "several unsigned thinking parts, which one reasoning text cannot keep apart",
            "response",
        )
    content: Any = None
    if len(texts) == 1:
        content = texts[0]
    elif texts:
        content = [TextPart(text=text) for text in texts]
    fields = (response.provider_details or {}).get(_FIELDS)
    bound = blocks or fields is not None or any(call.provider_specific_fields for call in calls)
    return AIMessage(
        content=content,
        tool_calls=calls,
        reasoning_content=reasoning[0] if reasoning else None,
        thinking_blocks=blocks or None,
        provider_specific_fields=fields,
        provider=response.provider_name if bound else None,
    )


def from_pydantic_ai(messages: Iterable[ModelMessage]) -> list[Message]:
    """A pydantic-ai history as messages of this package (see this module's docstring). Raises
    ``ConversionError`` naming the request or response index and the part it cannot hold.

    Args:
        messages: a pydantic-ai history (``result.all_messages()``).

    Returns:
        The messages; a retry prompt is a tool result with the text the model saw.

    Raises:
        ConversionError: a part a message of this package cannot hold (the message index and the part named).
        ImportError: pydantic-ai-slim is not installed (``pip install 'llm-messages[pydantic-ai]'``).

    Examples:
        ```python
        from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
        from messages import AIMessage, UserMessage
        from messages.convert import from_pydantic_ai, to_pydantic_ai

        history = [ModelRequest(parts=[UserPromptPart("Hi")]),
                   ModelResponse(parts=[TextPart("Hello!")])]
        conversation = from_pydantic_ai(history)
        assert conversation == [UserMessage(content="Hi"), AIMessage(content="Hello!")]
        assert from_pydantic_ai(to_pydantic_ai(conversation)) == conversation
        ```
    """
    pai = _import()
    history = list(messages)
    out: list[Message] = []
    instructions = {m.instructions for m in history if isinstance(m, pai.ModelRequest) and m.instructions}
    if len(instructions) > 1:
        raise ConversionError(
            "requests with different instructions: pydantic-ai sends only the last ones, so which to keep "
            "is not clear; set them all alike or move them to system prompts",
            index=None,
            part="instructions",
        )
    if instructions:
        out.append(SystemMessage(content=instructions.pop()))
    calls: dict[str, str] = {}
    for index, message in enumerate(history):
        try:
            if isinstance(message, pai.ModelRequest):
                _request(pai, message, index, out, calls)
            elif isinstance(message, pai.ModelResponse):
                reply = _response_from(pai, message, index)
                calls.update((call.id, call.name) for call in reply.tool_calls)
                out.append(reply)
            else:
                raise ConversionError(
                    f"message {index} is a {type(message).__name__}, not a ModelRequest or ModelResponse",
                    index=index,
                )
        except ValidationError as exc:
            raise ConversionError(f"message {index}: not a valid message here: {exc}", index=index) from None
    return out
