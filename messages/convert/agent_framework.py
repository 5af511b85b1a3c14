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
                    filename, ``file_id`` kept); a file by id alone as ``hosted_file`` content
``AIMessage``       ``Message("assistant")``: the ``reasoning_content`` as a ``text_reasoning`` content, the
                    text, a ``refusal`` as a text content marked as Agent Framework's OpenAI client marks one,
                    a ``function_call`` per tool call (``call_id``, ``name``, the arguments' exact string),
                    then ``provider_specific_fields={"reasoning_details": [...]}`` (what OpenRouter and
                    vLLM return, kept there by litellm) as a ``text_reasoning`` content holding their JSON
                    as its ``protected_data``, as Agent Framework's OpenAI chat client writes them
``ToolMessage``     ``Message("tool")`` with one ``function_result``: ``call_id``; the result as a string,
                    or its parts as ``items``; ``is_error=True`` as an ``exception``, written as Agent
                    Framework persists every exception (``"FunctionInvocationError"``); ``name`` kept
``name``            ``author_name`` (of a system, user or assistant message)
==================  =====================================================================================

A message's text is one ``text`` content when it is a string, and one per part when it is a list, so a list
of a single text part would come back a string: it is refused (give the string).

**Everything Agent Framework holds is kept.** Reading Agent Framework messages
(``from_agent_framework(messages, envelopes=True)``) never refuses a content for its type: what this package
has a form for is typed, the rest is kept exactly, as ``Content.to_dict()`` writes it, in the message's
``AgentFrameworkEnvelope`` (made for a thread store's envelope), and ``to_agent_framework`` gives every
message back in its place and its order. Kept whole, because no message a model reads holds them:

* every content type but the ones above: approval requests and responses
  (``function_approval_request`` and ``function_approval_response``), ``oauth_consent_request``,
  ``usage``, ``error``, ``hosted_vector_store``, the calls and results of the service's own tools (code
  interpreter, image generation, MCP, search, shell, computer use) and a ``function_call`` the service
  made itself (``hosted`` or ``informational_only``): a record of what the service ran, with no result
  for this conversation to answer;
* a content where its message has no place for it (media in a system or assistant message, a call outside
  an assistant message, a result outside a tool message), a second reasoning text, reasoning details or
  refusal, reasoning held only as ``protected_data`` that is not reasoning details (the Responses API's
  encrypted reasoning: only the service that wrote it reads it), a ``data`` or ``uri`` content no part
  holds (a file by URL, a media type missing, a file without a name), a call or result this package
  cannot hold (an empty id or name), a content whose fields Agent Framework would not give back;
* a whole message with nothing of the above to type (a user's approval, a reply that only asks for OAuth
  consent, a tool message without a result, a role this package has no message for): it is kept in the
  envelope of the next message (``before``), or of the one before it when none follows (``after``); a list
  of such messages only is kept by a ``carrier``, an empty ``AIMessage`` that stands for none.

So what a model request cannot hold is never among the messages, and its absence never breaks the
tool-call protocol: a user's approval between a call and its result is kept beside the result, and the
conversation reads call, then result. A call still waiting for its approval is a call without a result,
which ``validate_conversation`` reports and ``repair_conversation`` answers, as any unanswered call.

**The envelope.** What an Agent Framework message holds beside what the model reads is kept for each
message of this package in an ``AgentFrameworkEnvelope``: the ``message_id``, the
``additional_properties``, a tool message's ``author_name`` (Agent Framework names the agent there; a
``ToolMessage``'s ``name`` is its tool's), each typed content's fields that the message does not hold (the
occurrence ``id`` Agent Framework gives a function call and its result, a content's own
``additional_properties``, a call's arguments given as a mapping, ...), the order of an assistant
message's typed contents when it is not reasoning, text, refusal, calls, reasoning details, the contents
kept whole (``kept``, by position), whole messages kept beside it (``before``, ``after``), and whether a
tool result shared its Agent Framework message with the one before it (Agent Framework puts the results
of a turn in one message; this package has a message per result).

``from_agent_framework(messages)`` returns the messages and refuses a message that has an envelope;
``from_agent_framework(messages, envelopes=True)`` returns the messages and one envelope per message;
``to_agent_framework(messages, envelopes)`` puts them back together. So:

* ``from_agent_framework(to_agent_framework(c)) == c`` for every conversation ``to_agent_framework``
  converts;
* ``to_agent_framework(*from_agent_framework(m, envelopes=True))`` serializes (``Message.to_dict()``) as
  ``m`` does, for every list of Agent Framework messages whose values are JSON: what Agent Framework's own
  persistence keeps. Like it, the converters leave out ``raw_representation`` (the provider's runtime
  object, an annotation's too) and keep a function result's ``exception`` as Agent Framework's marker,
  never its text (Agent Framework treats the text as sensitive and never persists it).

Refused with ``ConversionError`` naming the message index and the field or content position:

* from Agent Framework: a value that is not JSON (in ``additional_properties``, a result, a tool's
  output...), which a store cannot keep and Agent Framework's own ``to_dict`` would drop or mangle;
* to Agent Framework: what every converter of this package refuses (prompt-cache marks, a
  reply's annotations, images and audio, media in an assistant turn, video parts, litellm's file keys, an
  image given as a bare string, ``is_error=False``), thinking blocks, provider fields other than
  reasoning details alone, a reply's ``provider``, an assistant content ``[]`` (it would come back
  ``None``), a list of one text part, an image whose media type is not an image's, an image ``format``
  equal to its data URL's own (it would come back unset), and an envelope that does not fit its message.

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
from messages.models import (
    REASONING_DETAILS,
    AIMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from messages.parts import AudioPart, ContentPart, FilePart, ImagePart, TextPart
from messages.protocol import check_types

if TYPE_CHECKING:
    from agent_framework import Message as AFMessage

__all__ = ["AgentFrameworkEnvelope", "from_agent_framework", "to_agent_framework"]

TYPED_CONTENT_TYPES = (
    "text",
    "text_reasoning",
    "data",
    "uri",
    "hosted_file",
    "function_call",
    "function_result",
)
"""The Agent Framework content types these converters type as this package's messages and parts; every
content is carried, these typed where they fit and every other one kept whole in the envelope."""

EXCEPTION_MARKER = "FunctionInvocationError"
"""What Agent Framework writes for a function result's ``exception`` when it persists one (its
``Content.to_dict``), and what ``is_error=True`` becomes."""

_KIND = "model_output_kind"
_REFUSAL_PROPERTIES: dict[str, Any] = {"core": {_KIND: "refusal"}, _KIND: "refusal"}
_MESSAGE_KEYS = frozenset({"type", "role", "contents", "author_name", "message_id", "additional_properties"})
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
    """By typed content (in the order reasoning, text, refusal, calls, reasoning details for an assistant
    message; ``0`` for a tool result): the content's fields, as ``Content.to_dict()`` writes them, that the
    message does not hold, ``None`` for a field the message would add that the content does not have."""
    order: tuple[int, ...] | None = None
    """An assistant message's typed contents in Agent Framework's order, as positions in the order
    reasoning, text, refusal, calls, reasoning details; ``None``: that order."""
    joined: bool = False
    """This tool result was in the same Agent Framework message as the tool result before it."""
    kept: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    """The contents this package has no form for, kept whole (``Content.to_dict()``), by their position
    in the Agent Framework message (for a tool result: in its share of its message, from the content after
    the result before it)."""
    before: tuple[Mapping[str, Any], ...] = ()
    """Whole Agent Framework messages (``Message.to_dict()``) with nothing this package types, just before
    this message."""
    after: tuple[Mapping[str, Any], ...] = ()
    """The same, just after this message (the last of a list, when none followed)."""
    carrier: bool = False
    """The message is an empty ``AIMessage`` that stands for none: it carries the ``before`` messages of
    a list that had nothing else."""

    def is_empty(self) -> bool:
        """Whether the envelope holds nothing: the message alone gives back the Agent Framework message.

        Returns:
            ``True`` when ``to_json()`` would be ``{}``.

        Raises nothing.
        """
        return self == _EMPTY

    def to_json(self) -> dict[str, Any]:
        """The envelope as a JSON object, without its empty fields.

        Returns:
            The fields that hold something, as JSON.

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
        if self.kept:
            out["kept"] = {str(key): dict(value) for key, value in self.kept.items()}
        if self.before:
            out["before"] = [dict(message) for message in self.before]
        if self.after:
            out["after"] = [dict(message) for message in self.after]
        if self.carrier:
            out["carrier"] = True
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AgentFrameworkEnvelope:
        """An envelope from its ``to_json`` form; ``ValueError`` naming the field for anything else.

        Args:
            data: what ``to_json`` gave (as read back from JSON).

        Returns:
            The envelope.

        Raises:
            ValueError: ``data`` is not an envelope's JSON object (the key that is wrong named).
        """
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"an Agent Framework envelope has no field {sorted(unknown)[0]!r}")
        message_id = data.get("message_id")
        author_name = data.get("author_name")
        properties = data.get("additional_properties", {})
        order = data.get("order")
        if not (message_id is None or isinstance(message_id, str)):
            raise ValueError("an Agent Framework envelope's message_id must be a string")
        if not (author_name is None or isinstance(author_name, str)):
            raise ValueError("an Agent Framework envelope's author_name must be a string")
        if not isinstance(properties, Mapping):
            raise ValueError("an Agent Framework envelope's additional_properties must be an object")
        if order is not None and not (isinstance(order, list) and all(type(i) is int for i in order)):
            raise ValueError("an Agent Framework envelope's order must be a list of positions")
        for name in ("joined", "carrier"):
            if type(data.get(name, False)) is not bool:
                raise ValueError(f"an Agent Framework envelope's {name} must be true or false")
        return cls(
            message_id=message_id,
            additional_properties=dict(properties),
            author_name=author_name,
            content_fields=_by_position(data, "content_fields"),
            order=None if order is None else tuple(order),
            joined=data.get("joined", False),
            kept=_by_position(data, "kept"),
            before=_messages_of(data, "before"),
            after=_messages_of(data, "after"),
            carrier=data.get("carrier", False),
        )


def _by_position(data: Mapping[str, Any], name: str) -> dict[int, dict[str, Any]]:
    found = data.get(name, {})
    if not isinstance(found, Mapping) or not all(
        isinstance(key, str) and key.isdigit() and isinstance(value, Mapping) for key, value in found.items()
    ):
        raise ValueError(f"an Agent Framework envelope's {name} must map positions to objects")
    return {int(key): dict(value) for key, value in found.items()}


def _messages_of(data: Mapping[str, Any], name: str) -> tuple[dict[str, Any], ...]:
    found = data.get(name, [])
    if not isinstance(found, list) or not all(isinstance(m, Mapping) for m in found):
        raise ValueError(f"an Agent Framework envelope's {name} must be a list of messages")
    return tuple(dict(m) for m in found)


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


def _details_content(details: list[Any]) -> dict[str, Any]:
    """Reasoning details as Agent Framework's OpenAI chat client keeps them (``json.dumps`` of the list)."""
    return {"type": "text_reasoning", "protected_data": json.dumps(details), "additional_properties": {}}


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
            # An uploaded file, by its id: Agent Framework's hosted_file.
            hosted: dict[str, Any] = {"type": "hosted_file", "file_id": part.file_id}
            if part.filename is not None:
                hosted["name"] = part.filename
            hosted["additional_properties"] = {}
            return hosted
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


def _reasoning_details(message: AIMessage) -> list[Any] | None:
    """The reply's reasoning details, when its provider fields are those alone (``None``: none)."""
    fields = message.provider_specific_fields
    if fields is None:
        return None
    details = fields.get(REASONING_DETAILS)
    return details if set(fields) == {REASONING_DETAILS} and isinstance(details, list) else None


# --- to Agent Framework ----------------------------------------------------------------------------------


def _contents(message: Message, index: int) -> list[dict[str, Any]]:
    """The message's typed contents in the order reasoning, text, refusal, calls, reasoning details (a
    tool result: one)."""
    if isinstance(message, SystemMessage | UserMessage):
        if isinstance(message.content, str):
            return [_text(message.content)]
        _one_text_part(message.content, index)
        return [_part(part, index, position) for position, part in enumerate(message.content)]
    if isinstance(message, ToolMessage):
        return [_result(message, index)]
    if message.thinking_blocks is not None:
        raise _error(index, "thinking_blocks", "Agent Framework's Message has no place for thinking_blocks")
    details = _reasoning_details(message)
    if message.provider_specific_fields is not None and details is None:
        raise _error(
            index,
            "provider_specific_fields",
            "Agent Framework's Message has no place for provider_specific_fields (only reasoning_details "
            "alone, as a text_reasoning content's protected_data)",
        )
    if message.provider is not None:
        raise _error(index, "provider", "Agent Framework's Message has no place for provider")
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
    if details is not None:  # last, where Agent Framework's OpenAI chat client puts them in a reply
        out.append(_details_content(details))
    return out


def _apply(
    contents: list[dict[str, Any]], envelope: AgentFrameworkEnvelope, index: int
) -> list[dict[str, Any]]:
    """The contents with the envelope's content fields, in the envelope's order, the kept contents in
    their places."""
    for position, fields in envelope.content_fields.items():
        if not 0 <= position < len(contents):
            raise _error(index, "content_fields", f"envelope fields for content {position}, which it lacks")
        contents[position] = {**contents[position], **fields}
    if envelope.order is not None:
        if sorted(envelope.order) != list(range(len(contents))):
            raise _error(
                index, "order", f"an envelope order {list(envelope.order)} for {len(contents)} contents"
            )
        contents = [contents[position] for position in envelope.order]
    for position in sorted(envelope.kept):
        if not 0 <= position <= len(contents):
            raise _error(index, "kept", f"a kept content at position {position} of {len(contents)} contents")
        contents.insert(position, dict(envelope.kept[position]))
    return contents


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


_CARRIER = AIMessage()


def to_agent_framework(
    messages: Iterable[Message], envelopes: Sequence[AgentFrameworkEnvelope | None] | None = None
) -> list[AFMessage]:
    """The messages as Agent Framework ``Message`` objects (see the table in this module's docstring).

    ``envelopes``, one per message (``None`` for none), give back what ``from_agent_framework(...,
    envelopes=True)`` kept beside them: the fields, the contents and the whole messages kept there. Raises
    ``MessageTypeError`` for an item that is not a message, and ``ConversionError`` naming the message and
    the field for what Agent Framework cannot hold.

    Args:
        messages: messages of this package, in order.
        envelopes: one per message (``None`` for none), as ``from_agent_framework(...,
            envelopes=True)`` returned them.

    Returns:
        Agent Framework ``Message`` objects.

    Raises:
        MessageTypeError: an item is not a ``Message``.
        ConversionError: something Agent Framework's types cannot hold, or an envelope that does not fit its
            message (the message index and the field named).
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
        built.extend((index, dict(kept)) for kept in envelope.before)
        if envelope.carrier:
            if message != _CARRIER or replace(envelope, before=(), carrier=False) != _EMPTY:
                raise _error(
                    index,
                    "carrier",
                    "a carrier envelope on a message that is not an empty AIMessage, or with more than the "
                    "messages it carries",
                )
            continue
        if envelope.joined:
            if not (isinstance(message, ToolMessage) and built and built[-1][1]["role"] == "tool"):
                raise _error(index, "joined", "an envelope that joins a message to a tool message before it")
            if (
                envelope.message_id is not None
                or envelope.additional_properties
                or envelope.author_name
                or envelope.before
            ):
                raise _error(
                    index,
                    "joined",
                    "a joined tool result with a message_id, author, properties or messages of its own",
                )
            built[-1][1]["contents"] += _apply(_contents(message, index), envelope, index)
        else:
            built.append((index, _message(message, index, envelope)))
        built.extend((index, dict(kept)) for kept in envelope.after)
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
    elif isinstance(value, list | tuple):
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


def _without_runtime_objects(value: Any) -> Any:
    """``value`` (a ``to_dict()`` tree) without the ``raw_representation`` of its annotations, a runtime
    object that Agent Framework's own persistence leaves out too."""
    if isinstance(value, dict):
        out = {key: _without_runtime_objects(item) for key, item in value.items()}
        annotations = out.get("annotations")
        if isinstance(annotations, list):
            out["annotations"] = [
                {k: v for k, v in a.items() if k != "raw_representation"} if isinstance(a, dict) else a
                for a in annotations
            ]
        return out
    if isinstance(value, list):
        return [_without_runtime_objects(item) for item in value]
    return value


def _message_dict(message: AFMessage, index: int) -> dict[str, Any]:
    """``message.to_dict()``, its values checked to be JSON first: Agent Framework's ``Message.to_dict``
    calls ``to_dict`` on every value that has one, without end on a value whose ``to_dict`` makes another
    such value (a mock), where each content's own ``to_dict`` stops."""
    _json(message.additional_properties, index, "additional_properties", "additional_properties")
    contents = []
    for position, content in enumerate(message.contents):
        made = _without_runtime_objects(content.to_dict())
        _json(made, index, position, "the content")
        contents.append(made)
    data: dict[str, Any] = {"type": "message", "role": message.role, "contents": contents}
    if message.author_name is not None:
        data["author_name"] = message.author_name
    if message.message_id is not None:
        data["message_id"] = message.message_id
    data["additional_properties"] = dict(message.additional_properties)
    return data


def _details_of(content: Mapping[str, Any]) -> list[Any] | None:
    """The reasoning details a ``text_reasoning`` content holds as its ``protected_data`` alone (Agent
    Framework's OpenAI chat client writes their JSON there); ``None`` for anything else."""
    if content.get("text") is not None:
        return None
    data = content.get("protected_data")
    if not isinstance(data, str) or not data.startswith("["):
        return None
    try:
        details = json.loads(data)
    except ValueError:
        return None
    return details if isinstance(details, list) else None


def _is_refusal(content: Mapping[str, Any]) -> bool:
    properties = content.get("additional_properties") or {}
    core = properties.get("core")
    kind = core.get(_KIND) if isinstance(core, Mapping) and _KIND in core else properties.get(_KIND)
    return bool(kind == "refusal")


def _local_call(content: Mapping[str, Any]) -> bool:
    """Whether a ``function_call`` content is a call this conversation answers: not one the service made
    and ran itself (``hosted``, or recorded for information only)."""
    return not content.get("hosted") and not content.get("informational_only")


class _UntypedError(Exception):
    """A content (or a message) that has no form in this package: it is kept whole."""


@dataclass
class _Slot:
    """One typed content: where it was, its dict, and the dict its typed form gives back."""

    position: int
    content: dict[str, Any]
    rebuilt: dict[str, Any]
    extras: dict[str, Any] = field(default_factory=dict)
    """What the envelope keeps beside the typed form (``_Reader.fields_back``)."""


class _Reader:
    """Reads one Agent Framework message's dict into messages of this package and their envelopes."""

    def __init__(self, af: Any, index: int, data: Mapping[str, Any]) -> None:
        self.af = af
        self.index = index
        self.data = data

    def error(self, part: int | str | None, what: str) -> ConversionError:
        return _error(self.index, part, what)

    def fields_back(self, original: dict[str, Any], rebuilt: dict[str, Any]) -> dict[str, Any] | None:
        """The envelope's fields (``_extras``) with which the typed form (``rebuilt``) gives back
        ``original``; ``None`` when it does not."""
        extras = _extras(original, rebuilt)
        if not extras:
            return extras
        try:
            back = self.af.Content.from_dict({**rebuilt, **extras}).to_dict() == original
        except (ValueError, TypeError):
            return None
        return extras if back else None

    def read(self) -> list[tuple[Message, AgentFrameworkEnvelope]]:
        """The message's messages with their envelopes; none when nothing of it is typed (the caller keeps
        it whole)."""
        data, role = self.data, self.data.get("role")
        unknown = set(data) - _MESSAGE_KEYS
        if unknown:
            raise self.error(sorted(unknown)[0], "a message field these converters do not know")
        contents: list[dict[str, Any]] = list(data.get("contents") or [])
        author = data.get("author_name")
        base = AgentFrameworkEnvelope(
            message_id=data.get("message_id"),
            additional_properties=dict(data.get("additional_properties") or {}),
        )
        try:
            if role == "tool":
                return self.tool(contents, author, base)
            if role == "assistant":
                return [self.assistant(contents, author, base)]
            if role in ("system", "developer", "user"):
                return [self.plain(role, contents, author, base)]
        except _UntypedError:
            pass
        return []

    def plain(
        self, role: str, contents: list[dict[str, Any]], author: str | None, base: AgentFrameworkEnvelope
    ) -> tuple[Message, AgentFrameworkEnvelope]:
        parts: list[ContentPart] = []
        fields: dict[int, dict[str, Any]] = {}
        kept: dict[int, dict[str, Any]] = {}
        for position, content in enumerate(contents):
            part = self.part(content, role == "user")
            if part is None:
                kept[position] = content
                continue
            try:
                extras = self.fields_back(content, _part(part, self.index, position))
            except ConversionError:
                extras = None
            if extras is None:
                kept[position] = content
                continue
            if extras:
                fields[len(parts)] = extras
            parts.append(part)
        if contents and not parts:
            raise _UntypedError
        text: Any = parts[0].text if len(parts) == 1 and isinstance(parts[0], TextPart) else parts
        try:
            message: Message
            if role == "user":
                message = UserMessage(content=text, name=author)
            else:
                message = SystemMessage(role=role, content=text, name=author)  # type: ignore[arg-type]
        except ValidationError:
            raise _UntypedError from None
        return message, replace(base, content_fields=fields, kept=kept)

    def part(self, content: Mapping[str, Any], media: bool) -> ContentPart | None:
        """A content of a user (``media``) or system message as a part; ``None`` when no part holds it."""
        kind = content.get("type")
        if kind == "text":
            return TextPart(text=content.get("text") or "")
        if not media:
            return None
        try:
            if kind in ("data", "uri"):
                return self.media(content)
            if kind == "hosted_file" and isinstance(content.get("file_id"), str):
                return FilePart(file_id=content["file_id"], filename=content.get("name"))
        except (ValidationError, _UntypedError):
            return None
        return None

    def media(self, content: Mapping[str, Any]) -> ContentPart:
        """A data or uri content as a part (what it holds beyond the part stays in the envelope);
        ``_UntypedError`` when no part holds it."""
        kind, uri, media_type = content["type"], content.get("uri"), content.get("media_type")
        if not isinstance(uri, str) or not isinstance(media_type, str):
            raise _UntypedError
        top = media_type.partition("/")[0].strip().lower()
        if top == "image":
            properties = content.get("additional_properties") or {}
            namespaced = properties.get("openai")
            detail = namespaced.get("image_detail") if isinstance(namespaced, Mapping) else None
            if detail is None:
                detail = properties.get("detail")
            own = _media_type_of(uri) if kind == "data" else _ANY_IMAGE
            image_format = None if media_type == own else media_type
            return ImagePart(url=uri, detail=detail, format=image_format)
        if kind == "uri":
            raise _UntypedError  # by URL, this package holds only an image
        if top == "audio":
            head, _, data = uri.partition(",")
            if head != f"data:{media_type};base64":
                raise _UntypedError  # its bytes and format would not come back
            return AudioPart(data=data, format=media_type.partition("/")[2])
        return FilePart(file_data=uri, filename=content.get("name"), file_id=content.get("file_id"))

    def assistant(
        self, contents: list[dict[str, Any]], author: str | None, base: AgentFrameworkEnvelope
    ) -> tuple[Message, AgentFrameworkEnvelope]:
        reasoning: _Slot | None = None
        details: tuple[_Slot, list[Any]] | None = None
        refusal: _Slot | None = None
        texts: list[_Slot] = []
        calls: list[tuple[_Slot, ToolCall]] = []
        kept: dict[int, dict[str, Any]] = {}
        for position, content in enumerate(contents):
            kind = content["type"]
            slot: _Slot | None = None
            if kind == "text_reasoning":
                found = _details_of(content)
                if reasoning is None and isinstance(content.get("text"), str):
                    slot = reasoning = _Slot(position, content, _reasoning(content["text"]))
                elif details is None and found is not None:
                    slot = _Slot(position, content, _details_content(found))
                    details = (slot, found)
            elif kind == "text" and _is_refusal(content):
                if refusal is None:
                    slot = refusal = _Slot(
                        position, content, _text(content.get("text") or "", _REFUSAL_PROPERTIES)
                    )
            elif kind == "text":
                slot = _Slot(position, content, _text(content.get("text") or ""))
                texts.append(slot)
            elif kind == "function_call" and _local_call(content):
                call = self.call(content)
                if call is not None:
                    slot = _Slot(position, content, _call(call))
                    calls.append((slot, call))
            extras = None if slot is None else self.fields_back(content, slot.rebuilt)
            if slot is not None and extras is not None:
                slot.extras = extras
                continue
            if slot is not None:  # typed, but its fields would not come back: keep it whole
                reasoning = None if reasoning is slot else reasoning
                details = None if details is not None and details[0] is slot else details
                refusal = None if refusal is slot else refusal
                texts = [t for t in texts if t is not slot]
                calls = [c for c in calls if c[0] is not slot]
            kept[position] = content
        if contents and len(kept) == len(contents):
            raise _UntypedError
        canonical = [
            *(() if reasoning is None else (reasoning,)),
            *texts,
            *(() if refusal is None else (refusal,)),
            *(slot for slot, _ in calls),
            *(() if details is None else (details[0],)),
        ]
        text: Any = None
        if len(texts) == 1:
            text = texts[0].content.get("text") or ""
        elif texts:
            text = [TextPart(text=slot.content.get("text") or "") for slot in texts]
        try:
            message = AIMessage(
                content=text,
                tool_calls=[call for _, call in calls],
                name=author,
                refusal=None if refusal is None else refusal.content.get("text") or "",
                reasoning_content=None if reasoning is None else reasoning.content["text"],
                provider_specific_fields=None if details is None else {REASONING_DETAILS: details[1]},
            )
        except ValidationError:
            raise _UntypedError from None
        fields = {slot_index: slot.extras for slot_index, slot in enumerate(canonical) if slot.extras}
        positions = [slot.position for slot in canonical]
        order = None
        if positions != sorted(positions):
            rank = {position: r for r, position in enumerate(sorted(positions))}
            slot_of = {rank[position]: slot_index for slot_index, position in enumerate(positions)}
            order = tuple(slot_of[r] for r in range(len(canonical)))
        return message, replace(base, content_fields=fields, order=order, kept=kept)

    def call(self, content: Mapping[str, Any]) -> ToolCall | None:
        arguments = content.get("arguments")
        if isinstance(arguments, Mapping):
            arguments = json.dumps(arguments)  # the text Agent Framework's OpenAI client sends for them
        try:
            return ToolCall(
                id=content.get("call_id") or "", name=content.get("name") or "", arguments=arguments or ""
            )
        except (ValidationError, TypeError):
            return None

    def tool(
        self, contents: list[dict[str, Any]], author: str | None, base: AgentFrameworkEnvelope
    ) -> list[tuple[Message, AgentFrameworkEnvelope]]:
        """One ``ToolMessage`` per result; the other contents kept in the share of the result before them
        (of the first result, for those before it)."""
        typed: list[tuple[int, ToolMessage, dict[str, Any]]] = []
        for position, content in enumerate(contents):
            if content["type"] != "function_result":
                continue
            message = self.result(content)
            if message is None:
                continue
            try:
                rebuilt = _result(message, self.index)
            except ConversionError:
                continue
            extras = self.fields_back(content, rebuilt)
            if extras is not None:
                typed.append((position, message, extras))
        if not typed:
            raise _UntypedError
        out: list[tuple[Message, AgentFrameworkEnvelope]] = []
        for number, (position, message, extras) in enumerate(typed):
            start = 0 if number == 0 else position
            stop = typed[number + 1][0] if number + 1 < len(typed) else len(contents)
            kept = {at - start: contents[at] for at in range(start, stop) if at != position}
            fields = {0: extras} if extras else {}
            if number == 0:
                envelope = replace(base, author_name=author, content_fields=fields, kept=kept)
            else:
                envelope = AgentFrameworkEnvelope(content_fields=fields, joined=True, kept=kept)
            out.append((message, envelope))
        return out

    def result(self, content: dict[str, Any]) -> ToolMessage | None:
        items = content.get("items")
        body: Any
        if not items:
            result = content.get("result")
            body = result if isinstance(result, str) else ""
        else:
            parts: list[ContentPart] = []
            for item in items:
                part = self.part(item, True) if isinstance(item, Mapping) else None
                if part is None:
                    return None
                parts.append(part)
            body = parts[0].text if len(parts) == 1 and isinstance(parts[0], TextPart) else parts
        try:
            return ToolMessage(
                tool_call_id=content.get("call_id") or "",
                content=body,
                name=content.get("name"),
                is_error=True if content.get("exception") is not None else None,
            )
        except ValidationError:
            return None


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
    messages and one ``AgentFrameworkEnvelope`` per message, which keep everything else: nothing is
    refused but values that are not JSON. Without, a message with an envelope (a ``message_id``,
    ``additional_properties``, a call's occurrence id, a content this package has no form for, ...)
    raises ``ConversionError`` (nothing is dropped). Errors name the message index (and content
    position).

    Args:
        messages: Agent Framework ``Message`` objects, in order (a session's history).
        envelopes: also return, for each message, the ``AgentFrameworkEnvelope`` that keeps what this
            package has no field for; without it, such a message is refused.

    Returns:
        The messages; with ``envelopes=True``, ``(messages, envelopes)``.

    Raises:
        ConversionError: a value that is not JSON (a store cannot keep it); without ``envelopes=True``, a
            message that needs an envelope (the message index and the content or field named).
        ImportError: agent-framework-core is not installed (``pip install 'llm-messages[agent-framework]'``).

    Examples:
        ```python
        from agent_framework import Content, Message
        from messages import AIMessage, UserMessage
        from messages.convert import from_agent_framework, to_agent_framework

        history = [
            Message(role="user", contents=[Content.from_text("Hi")]),
            Message(role="assistant", contents=[Content.from_text("Hello!")]),
        ]
        conversation = from_agent_framework(history)
        assert conversation == [UserMessage(content="Hi"), AIMessage(content="Hello!")]
        assert from_agent_framework(to_agent_framework(conversation)) == conversation
        ```
    """
    af = _import()
    out: list[Message] = []
    kept: list[AgentFrameworkEnvelope] = []
    pending: list[dict[str, Any]] = []  # whole messages waiting for the next typed one
    for index, message in enumerate(messages):
        if not isinstance(message, af.Message):
            raise ConversionError(
                f"message {index} is a {type(message).__name__}, not an Agent Framework Message", index=index
            )
        data = _message_dict(message, index)
        read = _Reader(af, index, data).read()
        if not envelopes:
            _refuse_envelope(index, data, read)
        if not read:
            pending.append(data)
            continue
        if pending:
            first, envelope = read[0]
            read[0] = (first, replace(envelope, before=tuple(pending)))
            pending = []
        for typed, envelope in read:
            out.append(typed)
            kept.append(envelope)
    if pending:
        if kept:
            kept[-1] = replace(kept[-1], after=tuple(pending))
        else:
            out.append(AIMessage())
            kept.append(AgentFrameworkEnvelope(before=tuple(pending), carrier=True))
    return (out, kept) if envelopes else out


def _refuse_envelope(
    index: int, data: Mapping[str, Any], read: list[tuple[Message, AgentFrameworkEnvelope]]
) -> None:
    """Without envelopes: refuse what only an envelope would keep, naming it."""
    way_out = "pass envelopes=True to read it beside the messages (a thread store keeps it in its envelope)"
    if not read:
        kinds = sorted({str(c.get("type")) for c in data.get("contents") or []}) or ["no"]
        raise ConversionError(
            f"message {index}: a {data.get('role')!r} message with {', '.join(kinds)} content, which no "
            f"message of this package holds; {way_out}",
            index=index,
            part="contents",
        )
    for _, envelope in read:
        if envelope.kept:
            position = min(envelope.kept)
            kind = envelope.kept[position].get("type")
            raise ConversionError(
                f"message {index}, content {position}: an Agent Framework {kind!r} content, which no message "
                f"of this package holds here; {way_out}",
                index=index,
                part=position,
            )
        # The results of one turn in one message come back one message each: the same exchange.
        if not replace(envelope, joined=False).is_empty():
            what = sorted(envelope.to_json())[0]
            raise ConversionError(
                f"message {index}: its {what} has no place in a message of this package; {way_out}",
                index=index,
                part=what,
            )
