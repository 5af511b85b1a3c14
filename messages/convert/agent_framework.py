"""Messages to Agent Framework ``Message`` lists and back (``pip install 'llm-messages[agent-framework]'``).

Agent Framework (agent-framework-core 1.23) keeps a conversation as ``Message`` objects: a role, a list of
``Content`` items, an ``author_name``, a ``message_id`` and ``additional_properties``.

==================  =====================================================================================
ours                Agent Framework
==================  =====================================================================================
``SystemMessage``   ``Message("system")`` (``"developer"`` kept as the role), its text as one ``text``
                    content, or one per text part
``UserMessage``     ``Message("user")``: text as ``text`` content; an image as ``data`` content (a data
                    URL) or ``uri`` content (an image by URL), its ``format`` as the media type (an image
                    URL without one says ``image/*``), its ``detail`` where Agent Framework's OpenAI client
                    reads it (``additional_properties["openai"]["image_detail"]``); audio as ``data``
                    content (``audio/<format>``); an inline file as ``data`` content (``name`` the
                    filename, ``file_id`` kept)
``AIMessage``       ``Message("assistant")``: the ``reasoning_content`` as a ``text_reasoning`` content, the
                    text, a ``refusal`` as a text content marked as Agent Framework's OpenAI client marks
                    one, then a ``function_call`` per tool call (``call_id``, ``name``, the arguments'
                    exact string)
``ToolMessage``     ``Message("tool")`` with one ``function_result``: ``call_id``; the result as a string,
                    or its parts as ``items``; ``is_error=True`` as an ``exception``, written as Agent
                    Framework persists every exception (``"FunctionInvocationError"``); ``name`` kept
``name``            ``author_name`` (of a system, user or assistant message)
==================  =====================================================================================

A message's text is one ``text`` content when it is a string, and one per part when it is a list, so a list
of a single text part would come back a string: it is refused (give the string).

**The envelope.** What an Agent Framework message holds beside what the model reads is kept for each
message of this package in an ``AgentFrameworkEnvelope``, made for a thread store's envelope: the
``message_id``, the ``additional_properties``, a tool message's ``author_name`` (Agent Framework names the
agent there; a ``ToolMessage``'s ``name`` is its tool's), each content's fields that the message does not
hold (the occurrence ``id`` Agent Framework gives a function call and its result, a content's own
``additional_properties``, a call's arguments given as a mapping, ...), the order of an assistant
message's contents when it is not reasoning, text, refusal, calls, and whether a tool result shared its
Agent Framework message with the one before it (Agent Framework puts the results of a turn in one message;
this package has a message per result).

``from_agent_framework(messages)`` returns the messages and refuses a message that has an envelope;
``from_agent_framework(messages, envelopes=True)`` returns the messages and one envelope per message;
``to_agent_framework(messages, envelopes)`` puts them back together. So:

* ``from_agent_framework(to_agent_framework(c)) == c`` for every conversation ``to_agent_framework``
  converts;
* ``to_agent_framework(*from_agent_framework(m, envelopes=True))`` serializes (``Message.to_dict()``) as
  ``m`` does: what Agent Framework's own persistence keeps. Like it, the converters leave out
  ``raw_representation`` (the provider's runtime object, an annotation's too) and keep a function
  result's ``exception`` as Agent Framework's marker, never its text (Agent Framework treats the text as
  sensitive and never persists it).

Refused with ``ConversionError`` naming the message index and the field or content position:

* from Agent Framework: a role other than system, developer, user, assistant and tool; every content type
  other than ``text``, ``text_reasoning``, ``data``, ``uri``, ``function_call`` and ``function_result``
  (``error``, ``usage``, ``hosted_file``, ``hosted_vector_store``, the hosted tools' calls and results,
  ``function_approval_request`` and ``_response``, ``oauth_consent_request``, ...), by name; a content
  where its message has no place for it (media in a system or assistant message, a call outside an
  assistant message, a result outside a tool message), a second reasoning or refusal in a reply, reasoning
  without text, a ``data`` or ``uri`` content no part holds (a file by URL, a media type missing), a file
  without a name, a tool message without a result, and ``additional_properties`` that are not JSON (Agent
  Framework's own ``to_dict`` would drop them);
* to Agent Framework: what ``messages.convert._guard`` refuses for every library (prompt-cache marks, a
  reply's annotations, images and audio, media in an assistant turn, video parts, litellm's file keys, an
  image given as a bare string, ``is_error=False``), thinking blocks and provider fields, an assistant
  content ``[]`` (it would come back ``None``), a list of one text part, an image whose media type is not
  an image's, an image ``format`` equal to its data URL's own (it would come back unset), and a file given
  only by ``file_id`` (Agent Framework's ``hosted_file``, refused the other way too).

agent-framework-core is imported inside the functions, never by ``import messages``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, overload

from pydantic import ValidationError

from messages._io import collector_paused
from messages.convert._guard import article, refuse_unmapped
from messages.errors import ConversionError
from messages.models import AIMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages.parts import AudioPart, ContentPart, FilePart, ImagePart, TextPart
from messages.protocol import check_types

if TYPE_CHECKING:
    from agent_framework import Message as AFMessage

__all__ = ["AgentFrameworkEnvelope", "from_agent_framework", "to_agent_framework"]

CARRIED_CONTENT_TYPES = ("text", "text_reasoning", "data", "uri", "function_call", "function_result")
"""The Agent Framework content types these converters carry; every other one is refused by name."""

EXCEPTION_MARKER = "FunctionInvocationError"
"""What Agent Framework writes for a function result's ``exception`` when it persists one (its
``Content.to_dict``), and what ``is_error=True`` becomes."""

_KIND = "model_output_kind"
_REFUSAL_PROPERTIES: dict[str, Any] = {"core": {_KIND: "refusal"}, _KIND: "refusal"}
_UNHELD_REPLY_FIELDS = ("thinking_blocks", "provider_specific_fields", "provider")
_MESSAGE_KEYS = frozenset({"type", "role", "contents", "author_name", "message_id", "additional_properties"})
_ROLES = ("system", "developer", "user", "assistant", "tool")
_ANY_IMAGE = "image/*"
_MISSING: Any = object()


@dataclass(frozen=True)
class AgentFrameworkEnvelope:
    """What an Agent Framework message holds beside what the model reads, kept for one message of this
    package (see the module docstring): its JSON form (``to_json``) is made for a thread store's metadata."""

    message_id: str | None = None
    """The Agent Framework message's ``message_id``."""
    additional_properties: Mapping[str, Any] = field(default_factory=dict)
    """The message's ``additional_properties`` (JSON values)."""
    author_name: str | None = None
    """A tool message's ``author_name`` (the ``name`` of a system, user or assistant message is its
    author_name, and is not repeated here)."""
    content_fields: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    """By content position (in the order reasoning, text, refusal, calls for an assistant message; ``0``
    for a tool result): the content's fields, as ``Content.to_dict()`` writes them, that the message
    does not hold, ``None`` for a field the message would add that the content does not have."""
    order: tuple[int, ...] | None = None
    """An assistant message's contents in Agent Framework's order, as positions in the order reasoning,
    text, refusal, calls; ``None``: that order."""
    joined: bool = False
    """This tool result was in the same Agent Framework message as the tool result before it."""

    def is_empty(self) -> bool:
        """Whether the envelope holds nothing: the message alone gives back the Agent Framework message.

        Raises nothing.
        """
        return self == _EMPTY

    def to_json(self) -> dict[str, Any]:
        """The envelope as a JSON object, without its empty fields.

        Raises nothing.
        """
        out: dict[str, Any] = {}
        if self.message_id is not None:
            out["message_id"] = self.message_id
        if self.additional_properties:
            out["additional_properties"] = dict(self.additional_properties)
        if self.author_name is not None:
            out["author_name"] = self.author_name
        if self.content_fields:
            out["content_fields"] = {str(key): dict(value) for key, value in self.content_fields.items()}
        if self.order is not None:
            out["order"] = list(self.order)
        if self.joined:
            out["joined"] = True
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AgentFrameworkEnvelope:
        """An envelope from its ``to_json`` form; ``ValueError`` naming the field for anything else.

        Raises:
            ValueError: ``data`` is not an envelope's JSON object (the key that is wrong named).
        """
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"an Agent Framework envelope has no field {sorted(unknown)[0]!r}")
        message_id = data.get("message_id")
        author_name = data.get("author_name")
        properties = data.get("additional_properties", {})
        fields = data.get("content_fields", {})
        order = data.get("order")
        joined = data.get("joined", False)
        if not (message_id is None or isinstance(message_id, str)):
            raise ValueError("an Agent Framework envelope's message_id must be a string")
        if not (author_name is None or isinstance(author_name, str)):
            raise ValueError("an Agent Framework envelope's author_name must be a string")
        if not isinstance(properties, Mapping):
            raise ValueError("an Agent Framework envelope's additional_properties must be an object")
        if not isinstance(fields, Mapping) or not all(
            isinstance(key, str) and key.isdigit() and isinstance(value, Mapping)
            for key, value in fields.items()
        ):
            raise ValueError("an Agent Framework envelope's content_fields must map positions to objects")
        if order is not None and not (isinstance(order, list) and all(type(i) is int for i in order)):
            raise ValueError("an Agent Framework envelope's order must be a list of positions")
        if type(joined) is not bool:
            raise ValueError("an Agent Framework envelope's joined must be true or false")
        return cls(
            message_id=message_id,
            additional_properties=dict(properties),
            author_name=author_name,
            content_fields={int(key): dict(value) for key, value in fields.items()},
            order=None if order is None else tuple(order),
            joined=joined,
        )


_EMPTY = AgentFrameworkEnvelope()


def _import() -> Any:
    try:
        import agent_framework
    except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
        raise ImportError(
            "messages.convert's Agent Framework converters need agent-framework-core: pip install "
            "'llm-messages[agent-framework]'"
        ) from exc
    return agent_framework


def _error(index: int, part: int | str | None, what: str) -> ConversionError:
    where = f"message {index}" if not isinstance(part, int) else f"message {index}, content {part}"
    return ConversionError(f"{where}: {what}", index=index, part=part)


# --- the content dicts, as Content.to_dict() writes them -------------------------------------------------


def _text(text: str, properties: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "text", "text": text, "additional_properties": dict(properties or {})}


def _reasoning(text: str) -> dict[str, Any]:
    return {"type": "text_reasoning", "text": text, "additional_properties": {}}


def _call(call: ToolCall) -> dict[str, Any]:
    return {
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": call.arguments,
        "hosted": False,
        "additional_properties": {},
    }


def _media_type_of(url: str) -> str | None:
    """The media type of a ``data:`` URL as Agent Framework reads it (``text/plain`` when it names none),
    ``None`` for any other URL."""
    if not url.startswith("data:"):
        return None
    head = url[5:].partition(",")[0]
    media_type = head.partition(";")[0].strip()
    return media_type or "text/plain"


def _part(part: ContentPart, index: int, position: int) -> dict[str, Any]:
    """A user or tool content part as an Agent Framework content dict."""
    if isinstance(part, TextPart):
        return _text(part.text)
    if isinstance(part, ImagePart):
        own = _media_type_of(part.url)
        image_format = None if isinstance(part.image_url, str) else part.image_url.format
        if image_format is not None and image_format == own:
            raise _error(
                index,
                position,
                f"an image format {image_format!r} equal to its data URL's own media type: it would come "
                "back unset; leave it unset",
            )
        media_type = image_format or own or _ANY_IMAGE
        if not media_type.lower().startswith("image/"):
            raise _error(
                index,
                position,
                f"an image whose media type is {media_type!r}: Agent Framework would read it back as "
                "another kind of content; give an image's media type as its format",
            )
        properties = {} if part.detail is None else {"openai": {"image_detail": part.detail}}
        return {
            "type": "data" if own is not None else "uri",
            "uri": part.url,
            "media_type": media_type,
            "additional_properties": properties,
        }
    if isinstance(part, AudioPart):
        media_type = f"audio/{part.format}"
        return {
            "type": "data",
            "uri": f"data:{media_type};base64,{part.data}",
            "media_type": media_type,
            "additional_properties": {},
        }
    if isinstance(part, FilePart):
        data = part.file_data
        if data is None:
            raise _error(
                index,
                position,
                "a file given only by file_id: Agent Framework holds an uploaded file as hosted_file "
                "content, which these converters do not carry; give the file inline",
            )
        own = _media_type_of(data)
        if own is None or own.lower().startswith(("image/", "audio/")):
            raise _error(
                index,
                position,
                "a file whose file_data is not a data URL of a document: Agent Framework would read it back "
                "as another kind of content",
            )
        out: dict[str, Any] = {"type": "data", "uri": data, "media_type": own}
        if part.filename is not None:
            out["name"] = part.filename
        if part.file_id is not None:
            out["file_id"] = part.file_id
        out["additional_properties"] = {}
        return out
    raise _error(
        index, position, f"{article(part.type)} {part.type!r} part, which Agent Framework has no content for"
    )


def _result(message: ToolMessage, index: int) -> dict[str, Any]:
    if isinstance(message.content, str):
        items = [_text(message.content)]
    else:
        _one_text_part(message.content, index)
        items = [_part(part, index, position) for position, part in enumerate(message.content)]
    texts = [item["text"] for item in items if item["type"] == "text" and item["text"]]
    out: dict[str, Any] = {
        "type": "function_result",
        "call_id": message.tool_call_id,
        "result": "\n".join(texts),
        "items": items,
    }
    if message.is_error:
        out["exception"] = EXCEPTION_MARKER
    if message.name is not None:
        out["name"] = message.name
    out["additional_properties"] = {}
    return out


def _one_text_part(content: Sequence[Any], index: int) -> None:
    if len(content) == 1 and isinstance(content[0], TextPart):
        raise _error(
            index,
            "content",
            "a list of one text part, which Agent Framework holds as it holds a string (one text content): "
            "it would come back a string; give the text as a string",
        )


def _texts(content: str | list[Any] | None, index: int) -> list[dict[str, Any]]:
    if content is None:
        return []
    if isinstance(content, str):
        return [_text(content)]
    _one_text_part(content, index)
    return [_text(part.text) for part in content]


# --- to Agent Framework ----------------------------------------------------------------------------------


def _contents(message: Message, index: int) -> list[dict[str, Any]]:
    """The message's contents in the order reasoning, text, refusal, calls (a tool result: one)."""
    if isinstance(message, SystemMessage | UserMessage):
        if isinstance(message.content, str):
            return [_text(message.content)]
        _one_text_part(message.content, index)
        return [_part(part, index, position) for position, part in enumerate(message.content)]
    if isinstance(message, ToolMessage):
        return [_result(message, index)]
    for name in _UNHELD_REPLY_FIELDS:
        if getattr(message, name) is not None:
            raise _error(index, name, f"Agent Framework's Message has no place for {name}")
    if message.content == []:
        raise _error(index, "content", "an empty content list, which would come back None; give None")
    out = [] if message.reasoning_content is None else [_reasoning(message.reasoning_content)]
    out += _texts(message.content, index)
    if message.refusal is not None:
        out.append(_text(message.refusal, _REFUSAL_PROPERTIES))
    for call in message.tool_calls:
        if call.provider_specific_fields is not None:
            raise _error(
                index, "tool_calls", f"provider fields on call {call.id!r}, which a function_call cannot hold"
            )
        out.append(_call(call))
    return out


def _apply(
    contents: list[dict[str, Any]], envelope: AgentFrameworkEnvelope, index: int
) -> list[dict[str, Any]]:
    """The contents with the envelope's content fields, in the envelope's order."""
    for position, fields in envelope.content_fields.items():
        if not 0 <= position < len(contents):
            raise _error(index, "content_fields", f"envelope fields for content {position}, which it lacks")
        contents[position] = {**contents[position], **fields}
    if envelope.order is None:
        return contents
    if sorted(envelope.order) != list(range(len(contents))):
        raise _error(index, "order", f"an envelope order {list(envelope.order)} for {len(contents)} contents")
    return [contents[position] for position in envelope.order]


def _message(message: Message, index: int, envelope: AgentFrameworkEnvelope) -> dict[str, Any]:
    if envelope.order is not None and not isinstance(message, AIMessage):
        raise _error(index, "order", "an envelope order for a message that is not an assistant message")
    if envelope.author_name is not None and not isinstance(message, ToolMessage):
        raise _error(
            index,
            "author_name",
            "an envelope author_name for a message whose name is its author_name; give it as the name",
        )
    out: dict[str, Any] = {
        "type": "message",
        "role": message.role,
        "contents": _apply(_contents(message, index), envelope, index),
    }
    name = envelope.author_name if isinstance(message, ToolMessage) else message.name
    if name is not None:
        out["author_name"] = name
    if envelope.message_id is not None:
        out["message_id"] = envelope.message_id
    out["additional_properties"] = dict(envelope.additional_properties)
    return out


def to_agent_framework(
    messages: Iterable[Message], envelopes: Sequence[AgentFrameworkEnvelope | None] | None = None
) -> list[AFMessage]:
    """The messages as Agent Framework ``Message`` objects (see the table in this module's docstring).

    ``envelopes``, one per message (``None`` for none), give back what ``from_agent_framework(...,
    envelopes=True)`` kept beside them. Raises ``MessageTypeError`` for an item that is not a message, and
    ``ConversionError`` naming the message and the field for what Agent Framework cannot hold.

    Raises:
        MessageTypeError: an item is not a ``Message``.
        ConversionError: something Agent Framework's types cannot hold (the message index and the field
            named).
        ImportError: agent-framework-core is not installed (``pip install 'llm-messages[agent-framework]'``).
    """
    af = _import()
    conversation = list(messages)
    check_types(conversation)
    given = [None] * len(conversation) if envelopes is None else list(envelopes)
    if len(given) != len(conversation):
        raise ConversionError(
            f"{len(given)} envelopes for {len(conversation)} messages: give one per message (None for none)",
            index=None,
        )
    refuse_unmapped(conversation, "Agent Framework", image_format=True)
    built: list[tuple[int, dict[str, Any]]] = []
    for index, (message, envelope) in enumerate(zip(conversation, given, strict=True)):
        envelope = envelope or _EMPTY
        if envelope.joined:
            if not (isinstance(message, ToolMessage) and built and built[-1][1]["role"] == "tool"):
                raise _error(index, "joined", "an envelope that joins a message to a tool message before it")
            if envelope.message_id is not None or envelope.additional_properties or envelope.author_name:
                raise _error(
                    index, "joined", "a joined tool result with a message_id, author or properties of its own"
                )
            built[-1][1]["contents"] += _apply(_contents(message, index), envelope, index)
            continue
        built.append((index, _message(message, index, envelope)))
    out = []
    with collector_paused():  # objects without cycles, a few per message (messages._io.collector_paused)
        for index, data in built:
            try:
                out.append(af.Message.from_dict(data))
            except (ValueError, TypeError) as exc:
                raise ConversionError(
                    f"message {index}: Agent Framework cannot build it from its envelope ({exc})", index=index
                ) from None
    return out


# --- from Agent Framework --------------------------------------------------------------------------------


def _json(value: Any, index: int, part: int | str, where: str) -> None:
    """Refuse a value that is not JSON (Agent Framework's to_dict drops such values without a word)."""
    problem = None
    if isinstance(value, float) and not math.isfinite(value):
        problem = f"{value!r}, which JSON cannot hold"
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                problem = f"a key {key!r} that is not a string"
                break
            _json(item, index, part, f"{where}[{key!r}]")
    elif isinstance(value, list):
        for number, item in enumerate(value):
            _json(item, index, part, f"{where}[{number}]")
    elif not (value is None or isinstance(value, str | int | float | bool)):
        problem = f"a value of type {type(value).__name__}, which is not JSON"
    if problem:
        raise _error(index, part, f"{where} holds {problem}; a store keeps these as JSON")


def _extras(original: Mapping[str, Any], rebuilt: Mapping[str, Any]) -> dict[str, Any]:
    """What ``original`` holds that ``rebuilt`` does not give back (``None`` for a key only ``rebuilt``
    has)."""
    out = {key: value for key, value in original.items() if rebuilt.get(key, _MISSING) != value}
    out.update({key: None for key in rebuilt if key not in original})
    return out


class _Reader:
    """Reads one Agent Framework message's dict into messages of this package and their envelopes."""

    def __init__(self, af: Any, index: int, data: Mapping[str, Any], properties: Mapping[str, Any]) -> None:
        self.af = af
        self.index = index
        self.data = data
        self.properties = properties  # the message's own additional_properties, before to_dict
        self.fields: dict[int, dict[str, Any]] = {}

    def error(self, part: int | str | None, what: str) -> ConversionError:
        return _error(self.index, part, what)

    def keep(self, slot: int, position: int, original: dict[str, Any], rebuilt: dict[str, Any]) -> None:
        """Keep in the envelope what ``original`` (content ``position``) holds beyond ``rebuilt``."""
        extras = _extras(original, rebuilt)
        if not extras:
            return
        _json(extras, self.index, position, "the content's fields")
        merged = {**rebuilt, **extras}
        if self.af.Content.from_dict(merged).to_dict() != original:
            raise self.error(
                position, f"content fields {sorted(extras)} that Agent Framework does not give back"
            )
        self.fields[slot] = extras

    def media(self, content: dict[str, Any], position: int) -> ContentPart:
        """A data or uri content as a part (what it holds beyond the part is for ``keep``)."""
        kind, uri, media_type = content["type"], content.get("uri"), content.get("media_type")
        if not isinstance(uri, str) or not isinstance(media_type, str):
            raise self.error(position, f"a {kind} content without a uri and a media type")
        top = media_type.partition("/")[0].strip().lower()
        part: ContentPart
        try:
            if top == "image":
                properties = content.get("additional_properties") or {}
                namespaced = properties.get("openai")
                detail = namespaced.get("image_detail") if isinstance(namespaced, Mapping) else None
                if detail is None:
                    detail = properties.get("detail")
                own = _media_type_of(uri) if kind == "data" else _ANY_IMAGE
                image_format = None if media_type == own else media_type
                part = ImagePart(url=uri, detail=detail, format=image_format)
            elif kind == "uri":
                raise self.error(
                    position,
                    f"content of type {media_type!r} given by URL: this package holds a file inline (a data "
                    "URL), and by URL only an image",
                )
            elif top == "audio":
                head, _, data = uri.partition(",")
                if head != f"data:{media_type};base64":
                    raise self.error(
                        position,
                        f"audio whose data URL does not start 'data:{media_type};base64,': its bytes and "
                        "format would not come back",
                    )
                part = AudioPart(data=data, format=media_type.partition("/")[2])
            else:
                part = FilePart(file_data=uri, filename=content.get("name"), file_id=content.get("file_id"))
        except ValidationError as exc:
            problems = "; ".join(e["msg"] for e in exc.errors())
            raise self.error(
                position, f"{kind} content of type {media_type!r} that no part holds: {problems}"
            ) from None
        return part

    def read(self) -> tuple[list[Message], list[AgentFrameworkEnvelope]]:
        data, role = self.data, self.data.get("role")
        unknown = set(data) - _MESSAGE_KEYS
        if unknown:
            raise self.error(sorted(unknown)[0], "a message field these converters do not know")
        if role not in _ROLES:
            raise self.error("role", f"the role {role!r}, which this package has no message for")
        contents: list[dict[str, Any]] = list(data.get("contents") or [])
        for position, content in enumerate(contents):
            kind = content.get("type")
            if kind not in CARRIED_CONTENT_TYPES:
                raise self.error(
                    position,
                    f"an Agent Framework {kind!r} content, which this package has no message part for (these "
                    "converters carry "
                    f"{', '.join(CARRIED_CONTENT_TYPES)})",
                )
        _json(self.properties, self.index, "additional_properties", "additional_properties")
        author = data.get("author_name")
        base = AgentFrameworkEnvelope(
            message_id=data.get("message_id"),
            additional_properties=dict(data.get("additional_properties") or {}),
        )
        if role == "tool":
            return self.tool(contents, author, base)
        if role == "assistant":
            message, order = self.assistant(contents, author)
        else:
            message, order = self.plain(role, contents, author), None
        envelope = replace(base, content_fields=self.fields, order=order)
        return [message], [envelope]

    def plain(self, role: str, contents: list[dict[str, Any]], author: str | None) -> Message:
        parts: list[ContentPart] = []
        for position, content in enumerate(contents):
            kind = content["type"]
            if kind == "text":
                part: ContentPart = TextPart(text=content.get("text") or "")
            elif kind in ("data", "uri") and role == "user":
                part = self.media(content, position)
            else:
                raise self.error(
                    position, f"a {kind!r} content in a {role} message, which has no place for it"
                )
            self.keep(position, position, content, _part(part, self.index, position))
            parts.append(part)
        text: Any = parts[0].text if len(parts) == 1 and isinstance(parts[0], TextPart) else parts
        try:
            if role == "user":
                return UserMessage(content=text, name=author)
            return SystemMessage(role=role, content=text, name=author)  # type: ignore[arg-type]
        except ValidationError as exc:
            raise self.error(
                "content", f"not a valid {role} message here: {exc.errors()[0]['msg']}"
            ) from None

    def assistant(
        self, contents: list[dict[str, Any]], author: str | None
    ) -> tuple[Message, tuple[int, ...] | None]:
        reasoning: tuple[int, dict[str, Any]] | None = None
        refusal: tuple[int, dict[str, Any]] | None = None
        texts: list[tuple[int, dict[str, Any]]] = []
        calls: list[tuple[int, dict[str, Any]]] = []
        for position, content in enumerate(contents):
            kind = content["type"]
            if kind == "text_reasoning":
                if reasoning is not None:
                    raise self.error(position, "a second reasoning content: a reply holds one reasoning text")
                if not isinstance(content.get("text"), str):
                    raise self.error(
                        position,
                        "reasoning without text (protected_data alone), which this package holds nowhere",
                    )
                reasoning = (position, content)
            elif kind == "text" and _is_refusal(content):
                if refusal is not None:
                    raise self.error(position, "a second refusal: a reply holds one")
                refusal = (position, content)
            elif kind == "text":
                texts.append((position, content))
            elif kind == "function_call":
                calls.append((position, content))
            else:
                raise self.error(
                    position, f"a {kind!r} content in an assistant message, which has no place for it"
                )
        canonical = [
            *(() if reasoning is None else (reasoning,)),
            *texts,
            *(() if refusal is None else (refusal,)),
            *calls,
        ]
        tool_calls = []
        for slot, (position, content) in enumerate(canonical):
            kind = content["type"]
            if kind == "function_call":
                call = self.call(content, position)
                tool_calls.append(call)
                rebuilt = _call(call)
            elif refusal is not None and position == refusal[0]:
                rebuilt = _text(content.get("text") or "", _REFUSAL_PROPERTIES)
            elif kind == "text_reasoning":
                rebuilt = _reasoning(content["text"])
            else:
                rebuilt = _text(content.get("text") or "")
            self.keep(slot, position, content, rebuilt)
        text: Any = None
        if len(texts) == 1:
            text = texts[0][1].get("text") or ""
        elif texts:
            text = [TextPart(text=content.get("text") or "") for _, content in texts]
        message = AIMessage(
            content=text,
            tool_calls=tool_calls,
            name=author,
            refusal=None if refusal is None else refusal[1].get("text") or "",
            reasoning_content=None if reasoning is None else reasoning[1]["text"],
        )
        positions = tuple(position for position, _ in canonical)
        order = None
        if positions != tuple(range(len(canonical))):
            slot_of = {position: slot for slot, position in enumerate(positions)}
            order = tuple(slot_of[position] for position in range(len(canonical)))
        return message, order

    def call(self, content: dict[str, Any], position: int) -> ToolCall:
        arguments = content.get("arguments")
        if isinstance(arguments, Mapping):
            arguments = json.dumps(arguments)  # the text Agent Framework's OpenAI client sends for them
        try:
            return ToolCall(
                id=content.get("call_id") or "", name=content.get("name") or "", arguments=arguments or ""
            )
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise self.error(position, f"a function call this package cannot hold ({problems})") from None

    def tool(
        self, contents: list[dict[str, Any]], author: str | None, base: AgentFrameworkEnvelope
    ) -> tuple[list[Message], list[AgentFrameworkEnvelope]]:
        if not contents:
            raise self.error("contents", "a tool message without a function result")
        messages: list[Message] = []
        envelopes: list[AgentFrameworkEnvelope] = []
        for position, content in enumerate(contents):
            if content["type"] != "function_result":
                raise self.error(
                    position, f"a {content['type']!r} content in a tool message, which holds results"
                )
            self.fields = {}
            message = self.result(content, position)
            self.keep(0, position, content, _result(message, self.index))
            if position == 0:
                envelopes.append(replace(base, author_name=author, content_fields=self.fields))
            else:
                envelopes.append(AgentFrameworkEnvelope(content_fields=self.fields, joined=True))
            messages.append(message)
        return messages, envelopes

    def result(self, content: dict[str, Any], position: int) -> ToolMessage:
        items = content.get("items")
        body: Any
        if not items:
            result = content.get("result")
            body = result if isinstance(result, str) else ""
        else:
            parts: list[ContentPart] = []
            for item in items:
                if item.get("type") == "text":
                    parts.append(TextPart(text=item.get("text") or ""))
                elif item.get("type") in ("data", "uri"):
                    parts.append(self.media(item, position))
                else:
                    raise self.error(
                        position, f"a result item of type {item.get('type')!r}, which no part holds"
                    )
            body = parts[0].text if len(parts) == 1 and isinstance(parts[0], TextPart) else parts
        try:
            return ToolMessage(
                tool_call_id=content.get("call_id") or "",
                content=body,
                name=content.get("name"),
                is_error=True if content.get("exception") is not None else None,
            )
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise self.error(position, f"a function result this package cannot hold ({problems})") from None


def _is_refusal(content: Mapping[str, Any]) -> bool:
    properties = content.get("additional_properties") or {}
    core = properties.get("core")
    kind = core.get(_KIND) if isinstance(core, Mapping) and _KIND in core else properties.get(_KIND)
    return bool(kind == "refusal")


@overload
def from_agent_framework(
    messages: Iterable[AFMessage], *, envelopes: Literal[False] = False
) -> list[Message]: ...


@overload
def from_agent_framework(
    messages: Iterable[AFMessage], *, envelopes: Literal[True]
) -> tuple[list[Message], list[AgentFrameworkEnvelope]]: ...


def from_agent_framework(
    messages: Iterable[AFMessage], *, envelopes: bool = False
) -> list[Message] | tuple[list[Message], list[AgentFrameworkEnvelope]]:
    """Agent Framework ``Message`` objects as messages of this package (see this module's docstring).

    A tool message with several results gives one ``ToolMessage`` per result. With ``envelopes=True``, the
    messages and one ``AgentFrameworkEnvelope`` per message; without, a message with an envelope (a
    ``message_id``, ``additional_properties``, a call's occurrence id, ...) raises ``ConversionError``
    (nothing is dropped). Raises ``ConversionError`` naming the message index (and content position) for
    what this package cannot hold.

    Raises:
        ConversionError: a message or content that a message of this package cannot hold (the message index
            and the content type named).
        ImportError: agent-framework-core is not installed (``pip install 'llm-messages[agent-framework]'``).
    """
    af = _import()
    out: list[Message] = []
    kept: list[AgentFrameworkEnvelope] = []
    for index, message in enumerate(messages):
        if not isinstance(message, af.Message):
            raise ConversionError(
                f"message {index} is a {type(message).__name__}, not an Agent Framework Message", index=index
            )
        for position, content in enumerate(message.contents):
            _json(content.additional_properties, index, position, "the content's additional_properties")
            for item in content.items or ():
                _json(item.additional_properties, index, position, "a result item's additional_properties")
        data = message.to_dict()
        for content in data.get("contents") or []:
            for annotation in content.get("annotations") or []:
                annotation.pop("raw_representation", None)  # a runtime object, as Agent Framework pickles it
        read, envelopes_of = _Reader(af, index, data, message.additional_properties).read()
        if not envelopes:
            for envelope in envelopes_of:
                # The results of one turn in one message come back one message each: the same exchange.
                if not replace(envelope, joined=False).is_empty():
                    what = sorted(envelope.to_json())[0]
                    raise ConversionError(
                        f"message {index}: its {what} has no place in a message of this package; pass "
                        "envelopes=True to read it beside the messages (a thread store keeps it in its "
                        "envelope)",
                        index=index,
                        part=what,
                    )
        out.extend(read)
        kept.extend(envelopes_of)
    return (out, kept) if envelopes else out
