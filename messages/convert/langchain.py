"""Messages to LangChain ``BaseMessage`` lists and back (``pip install 'llm-messages[langchain]'``).

===============================  ===================================================================
ours                             LangChain (``langchain_core.messages``)
===============================  ===================================================================
``SystemMessage``                ``SystemMessage``; ``role="developer"`` as
                                 ``additional_kwargs["__openai_role__"]`` (langchain-openai's key)
``UserMessage``                  ``HumanMessage``, parts as OpenAI-format content blocks
``AIMessage``                    ``AIMessage``: text as ``content`` (``None`` as ``[]``), calls as
                                 ``tool_calls`` (arguments parsed) or ``invalid_tool_calls`` (arguments
                                 that are not a JSON object), and as sent in
                                 ``additional_kwargs["tool_calls"]`` (byte-exact arguments, order,
                                 provider fields); ``refusal``, ``reasoning_content``, ``thinking_blocks``
                                 and ``provider_specific_fields`` in ``additional_kwargs`` under those
                                 keys (langchain-openai's ``refusal``, langchain-deepseek's
                                 ``reasoning_content``); ``provider`` as
                                 ``response_metadata["model_provider"]``
``ToolMessage``                  ``ToolMessage`` (``tool_call_id``, ``name``, content as above);
                                 ``is_error=True`` as ``status="error"`` (``False`` is refused: it
                                 would come back unset)
``TextPart.cache_control``       the text block's own ``cache_control`` key
                                 (``{"type": "text", "text": ..., "cache_control": {...}}``)
===============================  ===================================================================

LangChain holds an Anthropic prompt-caching mark on a content block, never on a message:
langchain-anthropic sends a text block's ``cache_control`` as it is (and, on a tool message's block, on
the ``tool_result`` it builds), and langchain-litellm passes the block to litellm unchanged. So a text
part's mark maps to its block and back; a message-level ``cache_control`` has no place there and is
refused, as is a mark on any block but text (no other part of ours holds one) and one under a block's
``extras`` (LangChain's v1 spelling, which langchain-anthropic does not send for text).

``name`` is kept on every message. ``from_langchain(to_langchain(c)) == c`` for every conversation that
``to_langchain`` converts; it refuses, naming the message and the field, what LangChain has no place for:
a reply's annotations, images and audio, video parts, litellm's own part keys, media in an assistant
turn, and the marks above.

``from_langchain`` also reads what LangChain itself and its integrations produce: string items and LangChain's
standard content blocks (``{"type": "image", "url" | "base64", "mime_type"}``, ``file``, ``audio``) in
user content, Anthropic-style ``thinking`` / ``redacted_thinking`` and ``tool_use`` blocks in assistant
content, and tool calls given only as ``tool_calls`` (arguments serialized once, compact). A LangChain
message ``id``, ``response_metadata`` (finish reason, model name, token counts) and ``usage_metadata``
describe the reply, not the message, and are not kept (the thread store keeps ids in its envelope).
Everything else that a message of ours cannot hold raises ``ConversionError`` naming the message index
and the field: an ``additional_kwargs`` key it does not know, a tool message's ``artifact``, a content
block of another kind, a ``ChatMessage`` or ``FunctionMessage``.

LangChain is imported inside the functions, never by ``import messages``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from messages.errors import ConversionError
from messages.models import AIMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages.parts import AudioPart, CacheControl, ContentPart, FilePart, ImagePart, TextPart
from messages.protocol import check_types

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

__all__ = ["from_langchain", "to_langchain"]

_AI_KWARGS = ("refusal", "reasoning_content", "thinking_blocks", "provider_specific_fields")
_TEXT_KEYS = frozenset({"type", "text", "id", "annotations", "cache_control"})
"""The keys of a text block that a ``TextPart`` holds (``id``, which LangChain mints, is not kept)."""
_PART: TypeAdapter[ContentPart] = TypeAdapter(ContentPart)
from messages.convert._guard import refuse_unmapped  # noqa: E402

_HAS_IS_ERROR = "is_error" in ToolMessage.model_fields


def _import() -> Any:
    try:
        import langchain_core.messages as lc
    except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
        raise ImportError(
            "messages.convert's LangChain converters need langchain-core: "
            "pip install 'llm-messages[langchain]'"
        ) from exc
    return lc


# --- to LangChain --------------------------------------------------------------------------------------


def _blocks(content: str | Sequence[ContentPart]) -> str | list[Any]:
    if isinstance(content, str):
        return content
    return [part.model_dump() for part in content]


def _tool_calls(message: AIMessage) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """LangChain's parsed ``tool_calls`` and ``invalid_tool_calls`` of ``message``."""
    valid: list[dict[str, Any]] = []
    invalid: list[dict[str, Any]] = []
    for call in message.tool_calls:
        raw = call.function["arguments"]
        try:
            args = json.loads(raw) if raw.strip() else {}
        except (ValueError, RecursionError):
            args = None
        if isinstance(args, dict):
            valid.append({"name": call.name, "args": args, "id": call.id, "type": "tool_call"})
        else:
            invalid.append(
                {
                    "name": call.name,
                    "args": raw,
                    "id": call.id,
                    "error": "the arguments are not a JSON object",
                    "type": "invalid_tool_call",
                }
            )
    return valid, invalid


def _to_one(lc: Any, message: Message, index: int) -> Any:
    if isinstance(message, UserMessage):
        return lc.HumanMessage(content=_blocks(message.content), name=message.name)
    if isinstance(message, SystemMessage):
        kwargs = {"__openai_role__": "developer"} if message.role == "developer" else {}
        return lc.SystemMessage(content=_blocks(message.content), name=message.name, additional_kwargs=kwargs)
    if isinstance(message, ToolMessage):
        failed = getattr(message, "is_error", None) is True
        return lc.ToolMessage(
            content=_blocks(message.content),
            tool_call_id=message.tool_call_id,
            name=message.name,
            status="error" if failed else "success",
        )
    if message.content == []:
        raise ConversionError(
            f"message {index}: assistant content that is an empty list of parts, which LangChain holds "
            "the way it holds no content; use None",
            index=index,
            part="content",
        )
    extra: dict[str, Any] = {}
    if message.tool_calls:
        extra["tool_calls"] = [call.model_dump() for call in message.tool_calls]
    for key in _AI_KWARGS:
        value = getattr(message, key)
        if value is not None:
            extra[key] = value
    valid, invalid = _tool_calls(message)
    return lc.AIMessage(
        content=[] if message.content is None else _blocks(message.content),
        name=message.name,
        tool_calls=valid,
        invalid_tool_calls=invalid,
        additional_kwargs=extra,
        response_metadata={"model_provider": message.provider} if message.provider is not None else {},
    )


def to_langchain(messages: Iterable[Message]) -> list[BaseMessage]:
    """The messages as LangChain messages (see the table in this module's docstring); nothing is lost:
    ``from_langchain`` gives back equal messages. Raises ``MessageTypeError`` for an item that is not a
    message.

    Args:
        messages: messages of this package, in order.

    Returns:
        LangChain messages (``SystemMessage``, ``HumanMessage``, ``AIMessage``, ``ToolMessage``).

    Raises:
        MessageTypeError: an item is not a ``Message``.
        ConversionError: something LangChain's messages cannot hold (a message-level ``cache_control``, a mark
            on an image): the message index and the field named.
        ImportError: langchain-core is not installed (``pip install 'llm-messages[langchain]'``).
    """
    lc = _import()
    conversation = list(messages)
    check_types(conversation)
    refuse_unmapped(conversation, "LangChain", text_cache_control=True)
    return [_to_one(lc, message, index) for index, message in enumerate(conversation)]


# --- from LangChain ------------------------------------------------------------------------------------


def _error(index: int, part: int | str | None, what: str) -> ConversionError:
    where = f"message {index}" if not isinstance(part, int) else f"message {index}, content part {part}"
    return ConversionError(f"{where}: {what}", index=index, part=part)


def _data_url(block: Mapping[str, Any]) -> str:
    return f"data:{block.get('mime_type') or 'application/octet-stream'};base64,{block['base64']}"


def _standard_block(block: Mapping[str, Any], index: int, position: int) -> ContentPart:
    """One of LangChain's own multimodal blocks (``image``, ``file``, ``audio``) as a part."""
    kind = block.get("type")
    if kind == "image" and (block.get("url") or block.get("base64")):
        url = block.get("url") or _data_url(block)
        return ImagePart(url=url, detail=(block.get("extras") or {}).get("detail"))
    if kind == "file" and (block.get("base64") or block.get("file_id") or block.get("id")):
        extras = block.get("extras") or {}
        filename = block.get("filename") or extras.get("filename")
        if block.get("base64"):
            return FilePart(file_data=_data_url(block), filename=filename)
        return FilePart(file_id=block.get("file_id") or block.get("id"), filename=filename)
    if kind == "audio" and block.get("base64"):
        mime = str(block.get("mime_type") or "")
        fmt = mime.split("/", 1)[1] if "/" in mime else mime
        if fmt in ("mpeg", "mp3"):
            fmt = "mp3"
        elif fmt in ("wav", "x-wav"):
            fmt = "wav"
        if not fmt:
            raise _error(index, position, "an audio block with no mime_type, so no format")
        try:
            base64.b64decode(block["base64"], validate=True)
        except (binascii.Error, ValueError):
            raise _error(index, position, "an audio block whose base64 does not decode") from None
        return AudioPart(data=block["base64"], format=fmt)
    raise _error(index, position, f"a {kind!r} content block this package has no part for ({_keys(block)})")


def _keys(block: Mapping[str, Any]) -> str:
    return "keys " + ", ".join(sorted(map(str, block)))


def _text(block: Any, index: int, position: int) -> TextPart | None:
    """A string item or a plain text block as a part; ``None`` for any other block."""
    if isinstance(block, str):
        return TextPart(text=block)
    kind = block.get("type") if isinstance(block, Mapping) else None
    if kind == "text" and isinstance(block.get("text"), str) and set(block) <= _TEXT_KEYS:
        if block.get("annotations"):
            raise _error(index, position, "a text block with annotations (citations), which no part holds")
        mark = block.get("cache_control")
        if mark is None:
            return TextPart(text=block["text"])
        try:
            return TextPart(text=block["text"], cache_control=CacheControl.model_validate(mark))
        except ValidationError as exc:
            raise _error(index, position, f"a cache_control mark that is not valid: {exc}") from None
    return None


def _misplaced_mark(block: Any, index: int, position: int) -> None:
    """Refuse a ``cache_control`` mark where no part of this package holds one."""
    if not isinstance(block, Mapping):
        return
    extras = block.get("extras")
    kind = block.get("type")
    if isinstance(extras, Mapping) and extras.get("cache_control") is not None:
        raise _error(
            index,
            position,
            f"a cache_control mark under a {kind!r} block's extras, which no part holds (langchain-anthropic "
            "sends a text block's mark only from the block itself: put it there)",
        )
    if kind != "text" and block.get("cache_control") is not None:
        raise _error(
            index,
            position,
            f"a cache_control mark on a block of type {kind!r}; only a text part holds one here",
        )


def _parts(content: Any, index: int, *, text_only: bool) -> str | list[Any]:
    if isinstance(content, str):
        return content
    parts: list[Any] = []
    for position, block in enumerate(content):
        _misplaced_mark(block, index, position)
        text = _text(block, index, position)
        kind = block.get("type") if isinstance(block, Mapping) else None
        if text is not None:
            parts.append(text)
        elif text_only:
            raise _error(index, position, f"a {kind!r} content block where only text can go")
        elif kind in ("image_url", "input_audio", "file") and isinstance(block.get(kind), Mapping):
            try:
                parts.append(_PART.validate_python(dict(block)))
            except ValidationError as exc:
                raise _error(index, position, f"a {kind!r} block that is not valid: {exc}") from None
        elif kind in ("image", "file", "audio"):
            parts.append(_standard_block(block, index, position))
        else:
            raise _error(index, position, f"a {kind!r} content block this package has no part for")
    return parts


def _check_kwargs(message: Any, index: int, known: Iterable[str]) -> None:
    unknown = sorted(set(message.additional_kwargs) - set(known))
    if unknown:
        raise _error(
            index,
            f"additional_kwargs[{unknown[0]!r}]",
            f"additional_kwargs[{unknown[0]!r}] has no field in a message of this package",
        )


def _calls(message: Any, index: int) -> list[ToolCall]:
    """The calls as LangChain holds them, from the exact ones in additional_kwargs when those agree."""
    parsed = {call["id"]: (call["name"], call["args"]) for call in message.tool_calls}
    invalid = {call["id"]: (call["name"], call["args"]) for call in message.invalid_tool_calls}
    raw = message.additional_kwargs.get("tool_calls")
    if raw:
        try:
            exact = [ToolCall.model_validate(call) for call in raw]
        except ValidationError as exc:
            raise _error(
                index, "additional_kwargs['tool_calls']", f"tool calls that are not valid: {exc}"
            ) from None
        if _agree(exact, parsed, invalid):
            return exact
    calls: list[ToolCall] = []
    for call in message.tool_calls:
        if not call.get("id"):
            raise _error(index, "tool_calls", f"tool call {call['name']!r} has no id, which results answer")
        calls.append(ToolCall(id=call["id"], name=call["name"], arguments=call["args"]))
    for call in message.invalid_tool_calls:
        if not call.get("id") or not call.get("name"):
            raise _error(index, "invalid_tool_calls", "an invalid tool call without an id or a name")
        calls.append(ToolCall(id=call["id"], name=call["name"], arguments=call.get("args") or ""))
    return calls


def _agree(exact: list[ToolCall], parsed: dict[Any, Any], invalid: dict[Any, Any]) -> bool:
    if len(exact) != len(parsed) + len(invalid):
        return False
    for call in exact:
        if call.id in parsed:
            name, args = parsed[call.id]
            try:
                if name != call.name or args != call.parse_arguments():
                    return False
            except ValueError:
                return False
        elif call.id in invalid:
            if invalid[call.id] != (call.name, call.arguments):
                return False
        else:
            return False
    return True


def _ai_content(message: Any, index: int) -> tuple[Any, list[dict[str, Any]] | None]:
    """Text (``None`` for ``[]``) and Anthropic-style thinking blocks of an assistant message's content."""
    content = message.content
    if isinstance(content, str):
        return content, None
    if not content:
        return None, None
    texts: list[Any] = []
    thinking: list[dict[str, Any]] = []
    ids = {call["id"] for call in message.tool_calls} | {call["id"] for call in message.invalid_tool_calls}
    for position, block in enumerate(content):
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind in ("thinking", "redacted_thinking"):
            thinking.append(dict(block))
        elif kind in ("tool_use", "tool_call") and block.get("id") in ids:
            _misplaced_mark(block, index, position)
            continue  # the same call as in tool_calls, which holds it
        else:
            _misplaced_mark(block, index, position)
            text = _text(block, index, position)
            if text is None:
                raise _error(index, position, f"a {kind!r} content block in an assistant message")
            texts.append(text)
    if not texts:
        return None, thinking or None
    return texts, thinking or None


def _from_one(lc: Any, message: Any, index: int) -> Message:
    name = message.name
    if isinstance(message, lc.HumanMessage):
        _check_kwargs(message, index, ())
        return UserMessage(content=_parts(message.content, index, text_only=False), name=name)
    if isinstance(message, lc.SystemMessage):
        _check_kwargs(message, index, ("__openai_role__",))
        role = message.additional_kwargs.get("__openai_role__", "system")
        if role not in ("system", "developer"):
            raise _error(
                index, "additional_kwargs['__openai_role__']", f"a system message with role {role!r}"
            )
        return SystemMessage(role=role, content=_parts(message.content, index, text_only=True), name=name)
    if isinstance(message, lc.ToolMessage):
        _check_kwargs(message, index, ())
        if message.artifact is not None:
            raise _error(index, "artifact", "a tool message's artifact, which a ToolMessage has no field for")
        fields: dict[str, Any] = {
            "tool_call_id": message.tool_call_id,
            "content": _parts(message.content, index, text_only=False),
            "name": name,
        }
        if message.status == "error":
            if not _HAS_IS_ERROR:
                raise _error(
                    index,
                    "status",
                    "a tool result marked status='error', which a ToolMessage cannot mark yet",
                )
            fields["is_error"] = True
        return ToolMessage.model_validate(fields)
    if isinstance(message, lc.AIMessage):
        _check_kwargs(message, index, ("tool_calls", *_AI_KWARGS))
        content, thinking = _ai_content(message, index)
        kwargs = message.additional_kwargs
        if thinking is not None and kwargs.get("thinking_blocks") is not None:
            raise _error(index, "content", "thinking blocks both in content and in additional_kwargs")
        fields = {
            "content": content,
            "tool_calls": _calls(message, index),
            "name": name,
            "thinking_blocks": thinking if thinking is not None else kwargs.get("thinking_blocks"),
        }
        for key in ("refusal", "reasoning_content", "provider_specific_fields"):
            fields[key] = kwargs.get(key)
        bound = fields["thinking_blocks"] or fields["provider_specific_fields"]
        bound = bound or any(call.provider_specific_fields for call in fields["tool_calls"])
        provider = message.response_metadata.get("model_provider")
        if bound and provider:
            fields["provider"] = provider
        return AIMessage(**fields)
    kind = type(message).__name__
    raise _error(
        index,
        "type",
        f"a LangChain {kind}, which has no counterpart here (system, human, AI and tool messages have one)",
    )


def from_langchain(messages: Iterable[BaseMessage]) -> list[Message]:
    """LangChain messages as messages of this package (see this module's docstring for what is read
    where). Raises ``ConversionError`` naming the message index and the field or content part it cannot
    hold.

    Args:
        messages: LangChain messages, in order.

    Returns:
        The messages, tool-call arguments byte for byte.

    Raises:
        ConversionError: a message or block a message of this package cannot hold (the message index and the
            field named).
        ImportError: langchain-core is not installed (``pip install 'llm-messages[langchain]'``).

    Examples:
        ```python
        from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
        from messages.convert import from_langchain, to_langchain

        call = {"name": "multiply", "args": {"a": 3, "b": 12}, "id": "call_1"}
        history = [HumanMessage("What is 3 * 12?"), AIMessage("", tool_calls=[call]),
                   ToolMessage("36", tool_call_id="call_1")]
        conversation = from_langchain(history)
        assert conversation[1].tool_calls[0].parse_arguments() == {"a": 3, "b": 12}
        assert to_langchain(conversation)[1].tool_calls == history[1].tool_calls
        ```
    """
    lc = _import()
    out: list[Message] = []
    for index, message in enumerate(messages):
        if not isinstance(message, lc.BaseMessage):
            raise ConversionError(
                f"message {index} is a {type(message).__name__}, not a LangChain BaseMessage",
                index=index,
            )
        try:
            out.append(_from_one(lc, message, index))
        except ValidationError as exc:
            raise ConversionError(f"message {index}: not a valid message here: {exc}", index=index) from None
    return out
