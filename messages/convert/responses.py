"""Messages to OpenAI Responses API input items and back, and a Responses API reply to an ``AIMessage``.

The Responses API (``litellm.responses``, ``client.responses.create``) takes a list of input items, not chat
messages. ``to_responses_items`` maps each message, in order, and ``from_responses_items`` reads the items
back into the same messages (``RemoteThread`` sends its pending messages through the same function):

==================  =========================================================================================
message             items
==================  =========================================================================================
``SystemMessage``   ``{"type": "message", "role": "system" | "developer", "content": str | [input_text]}``
``UserMessage``     ``{"type": "message", "role": "user", "content": str | [input_text | input_image |
                    input_file]}``
``AIMessage``       its text as ``{"type": "message", "role": "assistant", "content": "..."}``, then one
                    ``{"type": "function_call", "call_id", "name", "arguments"}`` per tool call
``ToolMessage``     ``{"type": "function_call_output", "call_id", "output": str | [input_* parts]}``; its
                    ``name``, when it is the name of the call it answers (LangGraph's tool node sets it so),
                    is left out: the ``function_call`` item already carries it
==================  =========================================================================================

On the way back (``from_responses_items``), each item gives back the message it came from, equal to it,
with two exceptions: a ``ToolMessage`` comes back without ``name`` (the ``function_call`` item holds the
tool's name; nothing says the result carried it too), and an image without ``detail`` comes back with
``"auto"``. A string stays a string and a list of parts stays a list.
Arguments are passed byte-exact. An assistant turn goes in the easy-message form, text as a string: the
output-message form requires a message ``id`` and ``status`` that only the service can assign (the OpenAI
SDK marks them required; openai-python#3544). An image without ``detail`` is sent with ``"auto"``, which
the API requires and which is what an unset detail means; it reads back as ``"auto"``.

What the items have no place for raises ``ConversionError`` naming the message and the field, instead of
vanishing: a message's ``name`` (a tool result's too, unless it is its call's own name); reasoning payloads
bound to the provider that produced them (``reasoning_content``, ``thinking_blocks``,
``provider_specific_fields`` of a message or a call; the Responses API takes back only its own encrypted
reasoning items, and with a remote thread the service already keeps them); an assistant ``refusal`` and
assistant text given as parts (the easy form holds one string, and a refusal part needs the output-message
form); an assistant turn with nothing in it; and an assistant turn that starts with tool calls right after
another assistant turn (its calls would read back as the earlier turn's). Audio has no input form: an
``AudioPart`` raises ``UnsupportedContentError`` (a ``ConversionError``) naming the message and part.

``from_responses_items`` reads items as dicts or as the OpenAI SDK's models, in the shapes above and in the
service's own output shapes (``output_text`` and ``refusal`` parts of an assistant message, ``reasoning``
items with a summary, which become the next assistant turn's ``reasoning_content``). Item ``id`` and
``status`` are the service's bookkeeping, not message content, and are not kept. An item it cannot
represent (a hosted tool's call, an encrypted reasoning item, an item reference) raises
``ConversionError`` naming its position and type.

``from_responses_output`` reads a reply (litellm's ``ResponsesAPIResponse``, the OpenAI SDK's ``Response``,
or the plain JSON dict) item by item: ``message`` items give the text (and ``refusal``), ``function_call``
items give ``tool_calls`` (the ``call_id`` is the id that a ``ToolMessage`` answers), ``reasoning`` summaries
give ``reasoning_content``. An item of any other type (a hosted tool's call, say) raises ``ReplyError``:
this package cannot represent it, and says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from messages.errors import ConversionError, ReplyError, UnsupportedContentError
from messages.models import AIMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages.parts import AudioPart, ContentPart, FilePart, ImagePart, TextPart, VideoPart
from messages.protocol import check_types

__all__ = [
    "from_responses_items",
    "from_responses_output",
    "response_id",
    "to_responses_items",
]


# --- to items ------------------------------------------------------------------------------------------


def _unsupported(index: int, position: int, what: str) -> UnsupportedContentError:
    return UnsupportedContentError(
        f"message {index}, content part {position}: {what}, which Responses API input has no place for; send "
        "this conversation through chat completions (litellm.completion)",
        index=index,
        part=position,
    )


def _part(part: ContentPart, index: int, position: int) -> dict[str, Any]:
    """One content part as an ``input_*`` content item."""
    if getattr(part, "cache_control", None) is not None:
        raise _unsupported(index, position, "a cache_control mark")
    if isinstance(part, VideoPart):
        raise _unsupported(index, position, "a video part (video_url)")
    if type(part) is ImagePart and not isinstance(part.image_url, str) and part.image_url.format is not None:
        raise _unsupported(index, position, "an image format (image_url.format)")
    if type(part) is FilePart:
        for name in ("format", "detail", "video_metadata"):
            if getattr(part.file, name, None) is not None:
                raise _unsupported(index, position, f"file.{name}")
    if type(part) is TextPart:
        return {"type": "input_text", "text": part.text}
    if type(part) is ImagePart:
        # `detail` is required by the API's schema; "auto" is what it means when unset.
        image = part.image_url
        if isinstance(image, str):
            return {"type": "input_image", "image_url": image, "detail": "auto"}
        return {"type": "input_image", "image_url": image.url, "detail": image.detail or "auto"}
    if type(part) is FilePart:
        file = part.file
        item: dict[str, Any] = {"type": "input_file"}
        if file.file_data is not None:
            item["file_data"] = file.file_data
        if file.file_id is not None:
            item["file_id"] = file.file_id
        if file.filename is not None:
            item["filename"] = file.filename
        return item
    if isinstance(part, AudioPart):
        raise UnsupportedContentError(
            f"message {index}, content part {position}: the Responses API takes no audio input "
            f"(input_audio, format {part.format!r}); send this conversation through chat completions "
            "(litellm.completion), or transcribe the audio to text first",
            index=index,
            part=position,
        )
    raise TypeError(f"message {index}, content part {position}: unknown part {type(part).__name__}")


def _content(content: str | Sequence[ContentPart], index: int) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    return [_part(part, index, position) for position, part in enumerate(content)]


def _cannot(index: int, field: str, what: str) -> ConversionError:
    return ConversionError(f"message {index}: {what}", index=index, part=field)


def _check_carried(message: Message, index: int, call_names: Mapping[str, tuple[int, str]]) -> None:
    """Raise for the fields of ``message`` that Responses API items have no place for. ``call_names``: the
    name of each call of the assistant turn before (by id), with that turn's index."""
    if message.cache_control is not None:
        raise _cannot(index, "cache_control", "Responses API input has no cache_control mark")
    if isinstance(message, ToolMessage) and message.is_error is not None:
        raise _cannot(index, "is_error", "Responses API input has no error flag on a function_call_output")
    if isinstance(message, AIMessage):
        for field in ("annotations", "images", "audio"):
            if getattr(message, field) is not None:
                raise _cannot(index, field, f"Responses API input has no {field} on an assistant turn")
    if isinstance(message, ToolMessage) and message.name is not None:
        _check_tool_name(message, index, call_names)
    elif message.name is not None:
        raise _cannot(
            index,
            "name",
            f"the Responses API has no participant name ({message.name!r}); drop it with "
            "model_copy(update={'name': None}) if the model need not see it",
        )
    if not isinstance(message, AIMessage):
        return
    for field in ("reasoning_content", "thinking_blocks", "provider_specific_fields"):
        if getattr(message, field) is not None:
            raise _cannot(
                index,
                field,
                f"{field} is bound to the provider that produced it and Responses API input has no place "
                "for it (the service keeps its own reasoning); drop it to send this turn as text and calls",
            )
    if message.refusal is not None:
        raise _cannot(
            index,
            "refusal",
            "Responses API input has no refusal for an assistant turn in the form it accepts from a client; "
            "put the refusal in content if the model should see it",
        )
    if isinstance(message.content, list):
        raise _cannot(
            index,
            "content",
            "assistant text given as parts: Responses API input holds an assistant turn's text as one "
            "string; join the parts first",
        )
    for call in message.tool_calls:
        if call.provider_specific_fields is not None:
            raise _cannot(
                index,
                "tool_calls",
                f"tool call {call.id!r} carries provider_specific_fields, which Responses API input has no "
                "place for",
            )
    if message.content is None and not message.tool_calls:
        raise _cannot(index, "content", "an assistant turn with no text and no tool calls has no items")


def _check_tool_name(message: ToolMessage, index: int, call_names: Mapping[str, tuple[int, str]]) -> None:
    """A tool result's ``name`` is its call's: left out, since the ``function_call`` item carries it. Any
    other name would be lost, so it is refused."""
    called = call_names.get(message.tool_call_id)
    if called is None:
        raise _cannot(
            index,
            "name",
            f"the tool result is named {message.name!r} but answers no call of the assistant turn before it "
            f"({message.tool_call_id!r}); the Responses API keeps a tool's name on its function_call only",
        )
    turn, name = called
    if message.name != name:
        raise _cannot(
            index,
            "name",
            f"the tool result is named {message.name!r}, but its call ({message.tool_call_id!r}, message "
            f"{turn}) calls {name!r}; the Responses API keeps the call's name only, so this one would be "
            "lost: drop it with model_copy(update={'name': None}), or name the result after its call",
        )


def _message_items(message: Message, index: int, items: list[dict[str, Any]]) -> None:
    if isinstance(message, ToolMessage):
        items.append(
            {
                "type": "function_call_output",
                "call_id": message.tool_call_id,
                "output": _content(message.content, index),
            }
        )
    elif isinstance(message, AIMessage):
        if message.content is not None:
            items.append({"type": "message", "role": "assistant", "content": message.content})
        for call in message.tool_calls:
            function = call.function
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.id,
                    "name": function["name"],
                    "arguments": function["arguments"],
                }
            )
    else:
        items.append({"type": "message", "role": message.role, "content": _content(message.content, index)})


def to_responses_items(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """The messages as Responses API input items, in order (see the table in this module's docstring).

    Args:
        messages: messages of this package, in order.

    Returns:
        Input items for ``litellm.responses(input=...)``: messages, ``function_call`` and
        ``function_call_output`` items.

    Raises ``MessageTypeError`` for an item that is not a message, and ``ConversionError`` naming the
    message and the field for what the items cannot carry (``UnsupportedContentError`` for audio).

    Raises:
        MessageTypeError: an item is not a ``Message``.
        UnsupportedContentError: content the Responses API has no input form for (audio, signed thinking): the
            message index and the part named.
        ConversionError: a field the Responses API items cannot carry (a participant ``name``).

    Examples:
        ```python
        from messages import AIMessage, ToolCall, ToolMessage, UserMessage
        from messages import from_responses_items, to_responses_items

        call = ToolCall(id="call_1", name="weather", arguments={"city": "Oslo"})
        conversation = [UserMessage(content="Weather?"), AIMessage(tool_calls=[call]),
                        ToolMessage.for_call(call, "rain")]
        items = to_responses_items(conversation)
        assert [item["type"] for item in items[1:]] == ["function_call", "function_call_output"]
        assert from_responses_items(items) == conversation
        ```
    """
    conversation = list(messages)
    check_types(conversation)
    items: list[dict[str, Any]] = []
    previous: Message | None = None
    call_names: dict[str, tuple[int, str]] = {}  # the calls of the latest assistant turn, by id
    for index, message in enumerate(conversation):
        if isinstance(message, AIMessage) and message.tool_calls:
            call_names = {call.id: (index, call.name) for call in message.tool_calls}
        elif not isinstance(message, ToolMessage):
            call_names = {}
        _check_carried(message, index, call_names)
        if isinstance(message, AIMessage) and isinstance(previous, AIMessage) and message.content is None:
            raise _cannot(
                index,
                "tool_calls",
                "an assistant turn that starts with tool calls right after another assistant turn: as "
                "items its calls would read back as part of the turn before; merge the two turns",
            )
        _message_items(message, index, items)
        previous = message
    return items


# --- from items ----------------------------------------------------------------------------------------


def _get(obj: Any, key: str, default: Any = None) -> Any:
    """A field of an item or a reply: a dict's key or a model's attribute (litellm and the SDK give both)."""
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _item_error(index: int, part: int | str | None, what: str) -> ConversionError:
    where = f"item {index}" if part is None or isinstance(part, str) else f"item {index}, content part {part}"
    return ConversionError(f"{where}: {what}", index=index, part=part)


def _read_part(part: Any, index: int, position: int, role: str) -> ContentPart:
    kind = _get(part, "type")
    if kind in ("input_text", "output_text", "text"):
        annotations = _get(part, "annotations")
        if annotations:
            raise _item_error(
                index, position, "a text part with annotations (citations), which no part holds"
            )
        return TextPart(text=_get(part, "text"))
    if role != "assistant" and role != "system" and role != "developer":
        if kind == "input_image":
            url = _get(part, "image_url")
            if not url:
                raise _item_error(index, position, "an image given by file_id, which ImagePart cannot hold")
            return ImagePart(url=url, detail=_get(part, "detail"))
        if kind == "input_file":
            if _get(part, "file_url"):
                raise _item_error(index, position, "a file given by file_url, which FilePart cannot hold")
            return FilePart(
                file_data=_get(part, "file_data"),
                file_id=_get(part, "file_id"),
                filename=_get(part, "filename"),
            )
        if kind == "input_audio":
            audio = _get(part, "input_audio")
            return AudioPart(data=_get(audio, "data"), format=_get(audio, "format"))
    raise _item_error(
        index, position, f"a {kind!r} content part in a {role} message, which this package cannot hold"
    )


def _read_content(content: Any, index: int, role: str) -> Any:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise _item_error(index, "content", f"content is a {type(content).__name__}, not a string or a list")
    return [_read_part(part, index, position, role) for position, part in enumerate(content)]


class _Reader:
    """Items to messages: an assistant turn is open while its text, calls and reasoning come in."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.turn: dict[str, Any] | None = None  # the assistant turn being read
        self.reasoning: list[str] = []  # summaries waiting for the next assistant turn

    def close_turn(self) -> None:
        if self.turn is not None:
            self.messages.append(AIMessage(**self.turn))
            self.turn = None

    def open_turn(self) -> dict[str, Any]:
        turn: dict[str, Any] = {"content": None, "tool_calls": []}
        if self.reasoning:
            turn["reasoning_content"] = "\n\n".join(self.reasoning)
            self.reasoning = []
        self.turn = turn
        return turn

    def assistant(self, item: Any, index: int) -> None:
        self.close_turn()
        turn = self.open_turn()
        content = _get(item, "content")
        if isinstance(content, str):
            turn["content"] = content
            return
        texts: list[str] = []
        refusals: list[str] = []
        for position, part in enumerate(content if isinstance(content, list) else [content]):
            if _get(part, "type") == "refusal":
                refusals.append(_get(part, "refusal") or "")
            else:
                text = _read_part(part, index, position, "assistant")
                assert isinstance(text, TextPart)  # the only part an assistant message reads as
                texts.append(text.text)
        turn["content"] = "".join(texts) if texts else None
        turn["refusal"] = "".join(refusals) if refusals else None

    def call(self, item: Any) -> None:
        """A function call belongs to the assistant turn open before it (to_responses_items refuses the
        conversations where that would join two turns), or opens one."""
        turn = self.turn if self.turn is not None else self.open_turn()
        turn["tool_calls"].append(
            ToolCall(
                id=_get(item, "call_id"), name=_get(item, "name"), arguments=_get(item, "arguments") or ""
            )
        )

    def other(self, message: Message) -> None:
        self.close_turn()
        self.messages.append(message)


def from_responses_items(items: str | Iterable[Any]) -> list[Message]:
    """Responses API input items (dicts or OpenAI SDK models; a bare string is one user message) as messages.

    The inverse of ``to_responses_items``: ``from_responses_items(to_responses_items(m)) == m`` for every
    conversation it converts. Raises ``ConversionError`` naming the item and the part it cannot represent.

    Args:
        items: input items (dicts or OpenAI SDK models), or a string (one user message).

    Returns:
        The messages, in order.

    Raises:
        ConversionError: an item a message of this package cannot hold (its index and type named).
    """
    if isinstance(items, str):
        return [UserMessage(content=items)]
    reader = _Reader()
    for index, item in enumerate(items):
        try:
            _read_item(reader, item, index)
        except ValidationError as exc:
            raise ConversionError(f"item {index}: not a valid message: {exc}", index=index) from None
    reader.close_turn()
    if reader.reasoning:
        reader.messages.append(AIMessage(reasoning_content="\n\n".join(reader.reasoning)))
    return reader.messages


def _read_item(reader: _Reader, item: Any, index: int) -> None:
    kind = _get(item, "type")
    role = _get(item, "role")
    if kind in ("message", None) and role is not None:
        if role == "assistant":
            reader.assistant(item, index)
        elif role in ("system", "developer"):
            content = _read_content(_get(item, "content"), index, role)
            reader.other(SystemMessage(role=role, content=content))
        elif role == "user":
            reader.other(UserMessage(content=_read_content(_get(item, "content"), index, role)))
        else:
            raise _item_error(index, "role", f"a message with role {role!r}")
    elif kind == "function_call":
        reader.call(item)
    elif kind == "function_call_output":
        output = _get(item, "output")
        content = _read_content(output, index, "tool")
        reader.other(ToolMessage(tool_call_id=_get(item, "call_id"), content=content))
    elif kind == "reasoning":
        if _get(item, "encrypted_content") or _get(item, "content"):
            raise _item_error(
                index,
                "encrypted_content",
                "a reasoning item with encrypted or raw content, which only the service can read back",
            )
        reader.close_turn()
        reader.reasoning.extend(_get(summary, "text") or "" for summary in _get(item, "summary") or [])
    else:
        raise _item_error(index, "type", f"a {kind!r} item, which this package cannot represent as a message")


# --- replies -------------------------------------------------------------------------------------------


def response_id(response: Any) -> str:
    """A Responses API reply's id (``resp_...``): the next request's ``previous_response_id``.

    Args:
        response: a Responses API reply (litellm's, the OpenAI SDK's, or its dict).

    Returns:
        Its id.

    Raises:
        ReplyError: the response carries no id.
    """
    value = _get(response, "id")
    if not isinstance(value, str) or not value:
        raise ReplyError(
            f"the reply has no response id (got {value!r}); is it a Responses API reply? Chat completions "
            "replies are read with AIMessage.from_litellm()"
        )
    return value


def from_responses_output(response: Any) -> AIMessage:
    """Read a Responses API reply into an ``AIMessage``: its text, refusal, function calls and reasoning.

    Args:
        response: a Responses API reply (litellm's, the OpenAI SDK's, or its dict).

    Returns:
        The reply as an assistant message.

    Raises ``ReplyError`` for a failed reply and for an output item this package cannot represent, naming
    the item's position and type.

    Raises:
        ReplyError: the response has no output this package can read as an ``AIMessage``.
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
