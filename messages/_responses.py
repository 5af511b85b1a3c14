"""Messages to OpenAI Responses API input items, and a Responses API reply back to an ``AIMessage``.

The Responses API (``litellm.responses``, ``client.responses.create``) takes a list of input items, not chat
messages. ``to_responses_input`` maps each message, in order:

* ``SystemMessage``: ``{"type": "message", "role": "system" | "developer", "content": [input_text]}``;
* ``UserMessage``: ``{"type": "message", "role": "user", "content": [input_text | input_image |
  input_file]}``;
* ``AIMessage``: its text as ``{"type": "message", "role": "assistant", "content": "..."}``, then one
  ``{"type": "function_call", "call_id", "name", "arguments"}`` per tool call;
* ``ToolMessage``: ``{"type": "function_call_output", "call_id", "output": str | [input_* parts]}``.

An assistant turn goes in the easy-message form, text as a string: the output-message form requires a
message ``id`` and ``status`` that only the service can assign (the OpenAI SDK marks them required; sending
one without them is an open question upstream, openai-python#3544). A refusal goes back as assistant text.
Arguments are passed byte-exact.

What the Responses API has no field for is not sent, by design rather than by accident: a message's
``name``, and reasoning payloads bound to the provider that produced them (``reasoning_content``,
``thinking_blocks``, ``provider_specific_fields``; the Responses API only takes its own encrypted reasoning
items back, and with a remote thread the service already keeps them). Audio has no input form there: an
``AudioPart`` raises ``UnsupportedContentError`` naming the message and part, rather than vanish.

``from_responses_output`` reads a reply (litellm's ``ResponsesAPIResponse``, the OpenAI SDK's ``Response``,
or the plain JSON dict) item by item: ``message`` items give the text (and ``refusal``), ``function_call``
items give ``tool_calls`` (the ``call_id`` is the id that a ``ToolMessage`` answers), ``reasoning`` summaries
give ``reasoning_content``. An item of any other type (a hosted tool's call, say) raises ``ReplyError``:
this package cannot represent it, and says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from messages.errors import ReplyError, UnsupportedContentError
from messages.models import AIMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages.parts import AudioPart, ContentPart, FilePart, ImagePart, TextPart, VideoPart
from messages.protocol import check_types

__all__ = ["from_responses_output", "response_id", "to_responses_input"]


def _text(content: str | list[Any], index: int) -> str:
    if isinstance(content, str):
        return content
    for position, part in enumerate(content):
        if not isinstance(part, TextPart):
            raise UnsupportedContentError(
                f"message {index}, content part {position}: an assistant turn's {part.type} part has no "
                "Responses API input item; send this conversation through chat completions "
                "(litellm.completion)",
                index=index,
                part=position,
            )
    return "".join(part.text for part in content)


def _part(part: ContentPart, index: int, position: int) -> dict[str, Any]:
    """One content part as an ``input_*`` content item."""
    if isinstance(part, TextPart):
        return {"type": "input_text", "text": part.text}
    if isinstance(part, ImagePart):
        # `detail` is required by the API's schema; "auto" is what it means when unset.
        return {"type": "input_image", "image_url": part.url, "detail": part.detail or "auto"}
    if isinstance(part, FilePart):
        item: dict[str, Any] = {"type": "input_file"}
        for key in ("file_data", "file_id", "filename"):
            value = getattr(part.file, key)
            if value is not None:
                item[key] = value
        return item
    if isinstance(part, AudioPart):
        raise UnsupportedContentError(
            f"message {index}, content part {position}: the Responses API takes no audio input "
            f"(input_audio, format {part.format!r}); send this conversation through chat completions "
            "(litellm.completion), or transcribe the audio to text first",
            index=index,
            part=position,
        )
    if isinstance(part, VideoPart):
        raise UnsupportedContentError(
            f"message {index}, content part {position}: the Responses API takes no video input "
            "(video_url); send this conversation through chat completions (litellm.completion)",
            index=index,
            part=position,
        )
    raise TypeError(f"message {index}, content part {position}: unknown part {type(part).__name__}")


def _content(content: str | list[Any], index: int) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "input_text", "text": content}]
    return [_part(part, index, position) for position, part in enumerate(content)]


def _message_items(message: Message, index: int) -> list[dict[str, Any]]:
    if isinstance(message, ToolMessage):
        output: str | list[dict[str, Any]] = (
            message.content if isinstance(message.content, str) else _content(message.content, index)
        )
        return [{"type": "function_call_output", "call_id": message.tool_call_id, "output": output}]
    if isinstance(message, AIMessage):
        items: list[dict[str, Any]] = []
        if message.content is not None:
            items.append({"type": "message", "role": "assistant", "content": _text(message.content, index)})
        if message.refusal is not None:
            items.append({"type": "message", "role": "assistant", "content": message.refusal})
        items.extend(
            {"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments}
            for call in message.tool_calls
        )
        return items
    if isinstance(message, (UserMessage, SystemMessage)):
        return [{"type": "message", "role": message.role, "content": _content(message.content, index)}]
    raise TypeError(f"message {index} is a {type(message).__name__}, not a Message")  # pragma: no cover


def to_responses_input(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """The messages as Responses API input items, in order (see the table in this module's docstring).

    Raises ``MessageTypeError`` for an item that is not a message and ``UnsupportedContentError`` for
    content the Responses API cannot take (audio), naming the message and part.
    """
    conversation = list(messages)
    check_types(conversation)
    items: list[dict[str, Any]] = []
    for index, message in enumerate(conversation):
        items.extend(_message_items(message, index))
    return items


def _get(obj: Any, key: str, default: Any = None) -> Any:
    """A field of a reply object: a dict's key or a model's attribute (litellm and the SDK give both)."""
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def response_id(response: Any) -> str:
    """A Responses API reply's id (``resp_...``): the next request's ``previous_response_id``."""
    value = _get(response, "id")
    if not isinstance(value, str) or not value:
        raise ReplyError(
            f"the reply has no response id (got {value!r}); is it a Responses API reply? Chat completions "
            "replies are read with AIMessage.from_litellm()"
        )
    return value


def from_responses_output(response: Any) -> AIMessage:
    """Read a Responses API reply into an ``AIMessage``: its text, refusal, function calls and reasoning.

    Raises ``ReplyError`` for a failed reply and for an output item this package cannot represent, naming
    the item's position and type.
    """
    status = _get(response, "status")
    if status == "failed":
        error = _get(response, "error")
        detail = _get(error, "message") if error is not None else None
        raise ReplyError(f"the response failed on the service: {detail or error or 'no error given'}")
    output = _get(response, "output")
    if not isinstance(output, list):
        raise ReplyError(
            f"the reply has no output list (got {type(output).__name__}); is it a Responses API reply?"
        )
    texts: list[str] = []
    refusals: list[str] = []
    reasoning: list[str] = []
    calls: list[ToolCall] = []
    for position, item in enumerate(output):
        kind = _get(item, "type")
        if kind == "message":
            for part in _get(item, "content") or []:
                part_kind = _get(part, "type")
                if part_kind == "output_text":
                    texts.append(_get(part, "text") or "")
                elif part_kind == "refusal":
                    refusals.append(_get(part, "refusal") or "")
                else:
                    raise ReplyError(f"output item {position} (message) has a {part_kind!r} content part")
        elif kind == "function_call":
            calls.append(
                ToolCall(id=_get(item, "call_id"), name=_get(item, "name"), arguments=_get(item, "arguments"))
            )
        elif kind == "reasoning":
            reasoning.extend(_get(summary, "text") or "" for summary in _get(item, "summary") or [])
        else:
            raise ReplyError(
                f"output item {position} is a {kind!r} item, which this package does not read (it reads "
                "message, function_call and reasoning items); with a remote thread the service keeps it"
            )
    content = "".join(texts) if texts else None
    return AIMessage(
        # Empty text beside function calls is no text, as AIMessage.from_litellm reads it.
        content=None if calls and not content else content,
        tool_calls=calls,
        refusal="".join(refusals) if refusals else None,
        reasoning_content="\n\n".join(text for text in reasoning if text) or None,
    )
