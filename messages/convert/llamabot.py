"""Messages to llamabot's messages and back (``pip install 'llm-messages[llamabot]'``).

llamabot (0.19) keeps a conversation as ``llamabot.components.messages`` objects: pydantic models with a
``role``, a string ``content``, a ``prompt_hash`` (set by its ``@prompt`` functions) and a ``tool_calls``
list (litellm's ``ChatCompletionMessageToolCall`` objects, or dicts).

=========================  ==========================================================================
ours                       llamabot
=========================  ==========================================================================
``SystemMessage``          ``SystemMessage``; ``role="developer"`` as ``DeveloperMessage``
``UserMessage``            ``HumanMessage`` (text); a user message of one image part given as a base64
                           data URL as ``ImageMessage`` (the picture, and its media type)
``AIMessage``              ``AIMessage``: the text (``""`` for none), the tool calls as litellm's
                           ``ChatCompletionMessageToolCall`` objects (id, name, the arguments' exact
                           string, a call's provider fields), which is what llamabot's bots hold
``ToolMessage``            ``ToolMessage`` (the content); llamabot's has no ``tool_call_id`` (see below)
=========================  ==========================================================================

**From llamabot** (``from_llamabot``), every message llamabot's bots and memories hold is read: its
``ThoughtMessage`` and ``ObservationMessage`` as assistant messages, ``RetrievedMessage`` as a system
message, ``DeveloperMessage`` as a developer message, ``ImageMessage`` as a user message of one image
part, tool calls given as litellm objects, OpenAI SDK objects or dicts (arguments given as an object
serialized once). Empty text beside tool calls (llamabot writes ``""`` where the model sent none) reads
as ``None``. A ``ToolMessage`` has no ``tool_call_id`` in llamabot (one given to it is dropped by pydantic
without a word): the results that follow an assistant turn answer its calls in order, the first result
the first call, as llamabot's bots run them; ``open_calls`` names the calls still unanswered when the
messages continue a conversation (a memory's). A result with no call left to answer raises.

What llamabot holds that no message of this package has a place for is kept in the message's
``LlamabotEnvelope`` (made for a thread store's envelope): the llamabot class when it is not the one the
role reads back as (``ThoughtMessage``, ``ObservationMessage``, ``RetrievedMessage``, a bare
``BaseMessage``, a subclass of the user's own), the ``prompt_hash``, and tool calls given as dicts (given
back as dicts). ``from_llamabot(messages)`` refuses a message that needs an envelope;
``from_llamabot(messages, envelopes=True)`` returns the envelopes beside the messages, and
``to_llamabot(messages, envelopes)`` gives back the llamabot messages they came from: same classes,
roles, contents, prompt hashes and tool calls.

**To llamabot** (``to_llamabot``), what llamabot's messages have no field for, and its bots never send
(they send ``role`` and ``content`` alone), is left out: a tool result's ``tool_call_id``, ``name`` and
``is_error``, every message's ``name``, a reply's reasoning, thinking blocks, refusal, provider fields,
annotations, images and audio, prompt-cache marks, an image's detail. Reading the list back with
``from_llamabot`` pairs each result with its call again by position, so a conversation whose results
follow their calls in order comes back with its ids. With ``strict=True`` nothing is left out:
``to_llamabot`` raises ``ConversionError`` for each of those fields (every tool result among them, for
its ``tool_call_id``), for an assistant text ``""`` beside tool calls and an empty reply (both would come
back otherwise), so ``from_llamabot(to_llamabot(c, strict=True)) == c``. Content llamabot's string cannot
be is refused either way: text or media as parts (but one image), an image by URL (llamabot's
``ImageMessage`` downloads it and keeps the picture), a non-image part.

llamabot and litellm are imported inside the functions, never by ``import messages``.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

from pydantic import ValidationError

from messages._from_litellm import _tool_call, plain
from messages.errors import ConversionError, ReplyError
from messages.models import AIMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages.parts import ImagePart
from messages.protocol import check_types

if TYPE_CHECKING:
    from llamabot.components.messages import BaseMessage

__all__ = ["LlamabotEnvelope", "from_llamabot", "to_llamabot"]

_LLAMABOT_MESSAGES = "llamabot.components.messages"
# The llamabot class each role reads back as, without an envelope.
_DEFAULT_CLASS = {
    "system": "SystemMessage",
    "developer": "DeveloperMessage",
    "user": "HumanMessage",
    "assistant": "AIMessage",
    "tool": "ToolMessage",
}
# The fields to_llamabot leaves out (refuses under strict), by message type: what llamabot has no field for.
_AI_FIELDS = (
    "name",
    "refusal",
    "reasoning_content",
    "thinking_blocks",
    "provider_specific_fields",
    "provider",
    "cache_control",
    "annotations",
    "images",
    "audio",
)
_OTHER_FIELDS = ("name", "cache_control")
_TOOL_FIELDS = ("name", "cache_control", "is_error")


@dataclass(frozen=True)
class LlamabotEnvelope:
    """What a llamabot message holds beside what a message of this package does, kept for one message (see
    the module docstring): its JSON form (``to_json``) is made for a thread store's metadata."""

    kind: str | None = None
    """The llamabot class of the message (``"llamabot.components.messages.ThoughtMessage"``: module and
    qualified name) when it is not the class its role reads back as; ``None``: that class."""
    prompt_hash: str | None = None
    """The message's ``prompt_hash`` (llamabot's ``@prompt`` functions set it on what they return)."""
    tool_calls: tuple[Mapping[str, Any], ...] | None = None
    """The message's tool calls as given, when they were given as dicts (JSON values): given back as
    dicts; ``None``: litellm objects, as llamabot's bots make them."""

    def is_empty(self) -> bool:
        """Whether the envelope holds nothing: the message alone gives back the llamabot message.

        Returns:
            True when no field is set.

        Raises nothing.
        """
        return self == _EMPTY

    def to_json(self) -> dict[str, Any]:
        """The envelope as a JSON object, without its empty fields.

        Returns:
            A dict of JSON values (``kind``, ``prompt_hash``, ``tool_calls``, each only when set), for a
            thread store's metadata.

        Raises nothing.
        """
        out: dict[str, Any] = {}
        if self.kind is not None:
            out["kind"] = self.kind
        if self.prompt_hash is not None:
            out["prompt_hash"] = self.prompt_hash
        if self.tool_calls is not None:
            out["tool_calls"] = [dict(call) for call in self.tool_calls]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LlamabotEnvelope:
        """An envelope from its ``to_json`` form; ``ValueError`` naming the field for anything else.

        Args:
            data: the JSON object ``to_json`` made (read back from a store's metadata).

        Returns:
            The envelope it describes.

        Raises:
            ValueError: ``data`` is not an envelope's JSON object (the key that is wrong named).
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"a llamabot envelope is a JSON object, not a {type(data).__name__}")
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"a llamabot envelope has no field {sorted(unknown)[0]!r}")
        for name in ("kind", "prompt_hash"):
            if not (data.get(name) is None or isinstance(data.get(name), str)):
                raise ValueError(f"a llamabot envelope's {name} must be a string")
        calls = data.get("tool_calls")
        if calls is not None and not (isinstance(calls, list) and all(isinstance(c, Mapping) for c in calls)):
            raise ValueError("a llamabot envelope's tool_calls must be a list of objects")
        return cls(
            kind=data.get("kind"),
            prompt_hash=data.get("prompt_hash"),
            tool_calls=None if calls is None else tuple(dict(call) for call in calls),
        )


_EMPTY = LlamabotEnvelope()


def _import() -> Any:
    try:
        import llamabot.components.messages as lm
    except ImportError as exc:  # pragma: no cover - the extra is installed where these run
        raise ImportError(
            "messages.convert's llamabot converters need llamabot: pip install 'llm-messages[llamabot]'"
        ) from exc
    return lm


def _error(index: int, part: int | str | None, what: str) -> ConversionError:
    where = f"message {index}" if not isinstance(part, int) else f"message {index}, content part {part}"
    return ConversionError(f"{where}: {what}", index=index, part=part)


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}" for e in exc.errors())


def _class_path(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


# --- from llamabot -------------------------------------------------------------------------------------


class _Calls:
    """The calls of the latest assistant turn that no result has answered yet, in order: what a llamabot
    ``ToolMessage`` (which has no ``tool_call_id``) answers."""

    def __init__(self, open_calls: Sequence[str]) -> None:
        self.open = list(open_calls)

    def answer(self, index: int) -> str:
        if not self.open:
            raise _error(
                index,
                "tool_call_id",
                "a llamabot ToolMessage, which holds no tool_call_id, and no call of the turn before it is "
                "left to answer, so which call it answers is not known (give the results of a turn right "
                "after it, one per call, in the calls' order; or give the package's ToolMessage with its "
                "tool_call_id)",
            )
        return self.open.pop(0)


def _read_calls(raw_calls: Any, index: int) -> tuple[list[ToolCall], tuple[Mapping[str, Any], ...] | None]:
    """A llamabot message's tool calls as ``ToolCall`` objects, and the list as given when it holds dicts."""
    if not isinstance(raw_calls, Sequence) or isinstance(raw_calls, (str, bytes)):
        raise _error(index, "tool_calls", f"tool_calls is a {type(raw_calls).__name__}, not a list")
    calls = []
    for position, raw in enumerate(raw_calls):
        try:
            fields = _tool_call(raw, position)
            calls.append(ToolCall.model_validate(fields))
        except (ReplyError, ValidationError) as exc:
            what = _problems(exc) if isinstance(exc, ValidationError) else str(exc)
            raise _error(
                index, "tool_calls", f"tool call {position} is not a tool call here ({what})"
            ) from None
    given = None
    if any(isinstance(raw, Mapping) for raw in raw_calls):
        given = tuple(plain(raw) for raw in raw_calls)
        try:
            json.dumps(given, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise _error(
                index, "tool_calls", f"tool calls given as dicts that are not JSON ({exc})"
            ) from None
    return calls, given


def _read(lm: Any, message: Any, index: int, calls: _Calls) -> tuple[Message, LlamabotEnvelope]:
    if not isinstance(message, lm.BaseMessage):
        raise ConversionError(
            f"message {index} is a {type(message).__name__}, not a llamabot message (a BaseMessage of "
            "llamabot.components.messages)",
            index=index,
        )
    role, content = message.role, message.content
    raw_calls = message.tool_calls or []
    if raw_calls and role != "assistant":
        raise _error(
            index, "tool_calls", f"a {role!r} message with tool calls, which only an assistant makes"
        )
    if not isinstance(content, str):
        raise _error(index, "content", f"content that is a {type(content).__name__}, not a string")
    typed: Message
    given: tuple[Mapping[str, Any], ...] | None = None
    if isinstance(message, lm.ImageMessage):
        if role != "user":
            raise _error(index, "role", f"an image of the {role!r} role: only a user message holds an image")
        media_type = getattr(message, "_mime_type", None) or "image/png"
        typed = UserMessage(content=[ImagePart(url=f"data:{media_type};base64,{content}")])
        default = "ImageMessage"
    elif role in ("system", "developer"):
        typed = SystemMessage(role=role, content=content)
        default = _DEFAULT_CLASS[role]
    elif role == "user":
        typed = UserMessage(content=content)
        default = _DEFAULT_CLASS[role]
    elif role == "assistant":
        tool_calls, given = _read_calls(raw_calls, index)
        text = None if content == "" and tool_calls else content
        typed = AIMessage(content=text, tool_calls=tool_calls)
        calls.open = [call.id for call in tool_calls]
        default = _DEFAULT_CLASS[role]
    elif role == "tool":
        typed = ToolMessage(tool_call_id=calls.answer(index), content=content)
        default = _DEFAULT_CLASS[role]
    else:
        raise _error(
            index,
            "role",
            f"the role {role!r}, which no message of this package has (system, developer, user, assistant, "
            "tool)",
        )
    if role != "tool" and role != "assistant":
        calls.open = []  # the turn's results are over: a later result answers no call of it
    kind = None if type(message) is getattr(lm, default) else _class_path(type(message))
    return typed, LlamabotEnvelope(kind=kind, prompt_hash=message.prompt_hash, tool_calls=given)


@overload
def from_llamabot(
    messages: Iterable[BaseMessage], *, envelopes: Literal[False] = False, open_calls: Sequence[str] = ()
) -> list[Message]: ...


@overload
def from_llamabot(
    messages: Iterable[BaseMessage], *, envelopes: Literal[True], open_calls: Sequence[str] = ()
) -> tuple[list[Message], list[LlamabotEnvelope]]: ...


def from_llamabot(
    messages: Iterable[BaseMessage], *, envelopes: bool = False, open_calls: Sequence[str] = ()
) -> list[Message] | tuple[list[Message], list[LlamabotEnvelope]]:
    """llamabot messages as messages of this package (see this module's docstring).

    Each llamabot ``ToolMessage`` answers the next call of the assistant turn before it that no result
    has answered, in order; ``open_calls`` are the ids of the calls still unanswered before the first
    message, when the messages continue a conversation. With ``envelopes=True``, the messages and one
    ``LlamabotEnvelope`` per message, which keep the llamabot class, the ``prompt_hash`` and tool calls
    given as dicts; without, a message that needs an envelope raises ``ConversionError`` (nothing is
    dropped).

    Args:
        messages: llamabot messages (``llamabot.components.messages.BaseMessage`` and its subclasses).
        envelopes: Return the envelopes beside the messages.
        open_calls: The ids of the calls a first ``ToolMessage`` answers, in order.

    Returns:
        The messages; with ``envelopes=True``, the messages and their envelopes.

    Raises:
        ConversionError: an item that is not a llamabot message, a role this package has no message for,
            tool calls on a message that is not an assistant's or that are not tool calls, an image of
            another role than the user's, a ``ToolMessage`` with no call left to answer; without
            ``envelopes=True``, a message that needs an envelope: the message index and the field named.
        ImportError: llamabot is not installed (``pip install 'llm-messages[llamabot]'``).

    Examples:
        >>> from llamabot.components.messages import AIMessage as LlamabotAI
        >>> from llamabot.components.messages import ToolMessage as LlamabotTool
        >>> function = {"name": "add", "arguments": "{}"}
        >>> call = {"id": "call_1", "type": "function", "function": function}
        >>> history = [LlamabotAI(content="", tool_calls=[call]), LlamabotTool(content="5")]
        >>> typed, kept = from_llamabot(history, envelopes=True)
        >>> typed[1].tool_call_id
        'call_1'
    """
    lm = _import()
    out: list[Message] = []
    kept: list[LlamabotEnvelope] = []
    calls = _Calls(open_calls)
    for index, message in enumerate(messages):
        try:
            typed, envelope = _read(lm, message, index, calls)
        except ValidationError as exc:
            raise ConversionError(
                f"message {index}: not a valid message here: {_problems(exc)}", index=index
            ) from None
        if not envelopes and not envelope.is_empty():
            what = sorted(envelope.to_json())[0]
            raise ConversionError(
                f"message {index}: its {what} ({envelope.to_json()[what]!r}) has no place in a message of "
                "this package; pass envelopes=True to read it beside the messages (a thread store keeps it "
                "in its envelope)",
                index=index,
                part=what,
            )
        out.append(typed)
        kept.append(envelope)
    return (out, kept) if envelopes else out


# --- to llamabot ---------------------------------------------------------------------------------------


def _lose(message: Message, index: int, names: Sequence[str], strict: bool, why: str) -> None:
    """Under ``strict``, refuse the first field of ``names`` the message sets (llamabot has no place for
    it, ``why``); otherwise it is left out."""
    if not strict:
        return
    for name in names:
        value = getattr(message, name)
        if value is not None:
            raise _error(
                index, name, f"{name} ({value!r}), which llamabot's messages have no field for; {why}"
            )


_STRICT_WAY_OUT = "to_llamabot leaves it out unless strict=True"


def _text(content: Any, index: int, what: str) -> str:
    if isinstance(content, str):
        return content
    raise _error(index, "content", f"{what} as parts: llamabot's messages hold their content as one string")


def _litellm_calls(message: AIMessage) -> list[Any]:
    from litellm.types.utils import ChatCompletionMessageToolCall, Function

    calls = []
    for call in message.tool_calls:
        extra = (
            {}
            if call.provider_specific_fields is None
            else {"provider_specific_fields": call.provider_specific_fields}
        )
        calls.append(
            ChatCompletionMessageToolCall(
                function=Function(name=call.name, arguments=call.arguments),
                id=call.id,
                type="function",
                **extra,
            )
        )
    return calls


def _image(message: UserMessage, index: int, strict: bool) -> tuple[str, str] | None:
    """The base64 data and media type of a user message that is one image given as a base64 data URL;
    ``None`` for a user message of text. ``ConversionError`` for the rest."""
    if isinstance(message.content, str):
        return None
    parts = message.content
    if len(parts) != 1 or not isinstance(parts[0], ImagePart):
        raise _error(
            index,
            "content",
            "parts: llamabot holds a user's text as one string, and an image (ImageMessage) as one picture "
            "alone",
        )
    part = parts[0]
    if isinstance(part.image_url, str):
        raise _error(
            index, 0, "an image URL given as a bare string, which llamabot's ImageMessage has no place for"
        )
    if strict and (part.detail is not None or part.image_url.format is not None):
        raise _error(
            index,
            0,
            f"an image's detail or format, which llamabot's ImageMessage has no place for; {_STRICT_WAY_OUT}",
        )
    head, _, data = part.url.partition(",")
    if not (head.startswith("data:") and head.endswith(";base64") and data):
        raise _error(
            index,
            0,
            "an image given by URL: llamabot's ImageMessage holds the picture itself (it downloads a URL); "
            "give a base64 data URL",
        )
    return data, head[len("data:") : -len(";base64")] or "image/png"


def _class_of(lm: Any, envelope: LlamabotEnvelope, default: str, index: int) -> Any:
    if envelope.kind is None:
        return getattr(lm, default)
    module, _, name = envelope.kind.rpartition(".")
    try:
        found: Any = importlib.import_module(module)
        for piece in name.split("."):
            found = getattr(found, piece)
    except (ImportError, AttributeError, ValueError):
        raise _error(
            index, "kind", f"its envelope names the class {envelope.kind!r}, which cannot be imported"
        ) from None
    if not (isinstance(found, type) and issubclass(found, lm.BaseMessage)):
        raise _error(
            index, "kind", f"its envelope names {envelope.kind!r}, which is not a llamabot message class"
        )
    return found


def _to_one(lm: Any, message: Message, index: int, envelope: LlamabotEnvelope, strict: bool) -> Any:
    calls: list[Any] = []
    image = None
    if isinstance(message, SystemMessage):
        _lose(message, index, _OTHER_FIELDS, strict, _STRICT_WAY_OUT)
        content = _text(message.content, index, "system text")
        default = _DEFAULT_CLASS[message.role]
    elif isinstance(message, UserMessage):
        _lose(message, index, _OTHER_FIELDS, strict, _STRICT_WAY_OUT)
        image = _image(message, index, strict)
        content = "" if image else _text(message.content, index, "user text")
        default = "ImageMessage" if image else "HumanMessage"
    elif isinstance(message, AIMessage):
        _lose(message, index, _AI_FIELDS, strict, _STRICT_WAY_OUT)
        if isinstance(message.content, list):
            raise _error(
                index, "content", "assistant content as parts: llamabot holds a reply's text as one string"
            )
        if strict and message.content == "" and message.tool_calls:
            raise _error(
                index, "content", "an empty text beside tool calls: it would come back as no text (None)"
            )
        if strict and message.content is None and not message.tool_calls:
            raise _error(
                index, "content", "a reply with neither text nor tool calls: it would come back as text ''"
            )
        content = message.content or ""
        calls = _litellm_calls(message)
        if envelope.tool_calls is not None:
            given, _ = _read_calls(list(envelope.tool_calls), index)
            if given != message.tool_calls:
                raise _error(index, "tool_calls", "its envelope's tool calls are not the message's")
            calls = [dict(call) for call in envelope.tool_calls]
        default = "AIMessage"
    else:
        if strict:
            raise _error(
                index,
                "tool_call_id",
                f"a tool result, whose tool_call_id ({message.tool_call_id!r}) llamabot's ToolMessage has no "
                "field for (from_llamabot pairs results with their calls by position; to_llamabot leaves "
                "the id out unless strict=True)",
            )
        content = _text(message.content, index, "a tool result")
        default = "ToolMessage"
    cls = _class_of(lm, envelope, default, index)
    if image is not None:
        data, media_type = image
        # ImageMessage's own constructor reads a path, a URL or a long base64 string: built without it.
        built = cls.model_construct(
            content=data, role=message.role, prompt_hash=envelope.prompt_hash, tool_calls=[]
        )
        built._mime_type = media_type
        return built
    return cls(content=content, role=message.role, prompt_hash=envelope.prompt_hash, tool_calls=calls)


def to_llamabot(
    messages: Iterable[Message],
    envelopes: Sequence[LlamabotEnvelope | None] | None = None,
    *,
    strict: bool = False,
) -> list[BaseMessage]:
    """The messages as llamabot messages (see the table in this module's docstring).

    ``envelopes``, one per message (``None`` for none), give back what ``from_llamabot(...,
    envelopes=True)`` kept beside them: the llamabot class, the ``prompt_hash``, tool calls given as dicts.
    What llamabot's messages have no field for is left out (a tool result's ``tool_call_id`` among it:
    ``from_llamabot`` pairs results with their calls by position); ``strict=True`` refuses it instead.

    Args:
        messages: Messages of this package.
        envelopes: One envelope per message (``None`` for none), or none at all.
        strict: Refuse, rather than leave out, what llamabot's messages have no field for.

    Returns:
        llamabot messages, one per message.

    Raises:
        MessageTypeError: an item is not a ``Message``.
        ConversionError: content llamabot's string cannot be (text or media as parts but one image, an
            image by URL), an envelope that does not fit its message or names a class that cannot be
            imported, a count of envelopes that is not the count of messages; with ``strict=True``, every
            field llamabot has no place for (a tool result's ``tool_call_id``, names, reasoning, ...): the
            message index and the field named.
        ImportError: llamabot (or litellm) is not installed (``pip install 'llm-messages[llamabot]'``).

    Examples:
        >>> from messages import AIMessage, ToolCall, ToolMessage
        >>> call = ToolCall(id="call_1", name="add", arguments={"a": 2, "b": 3})
        >>> conversation = [AIMessage(tool_calls=[call]), ToolMessage.for_call(call, 5)]
        >>> reply, result = to_llamabot(conversation)
        >>> reply.tool_calls[0].function.name, result.content
        ('add', '5')
    """
    lm = _import()
    conversation = list(messages)
    check_types(conversation)
    given = [None] * len(conversation) if envelopes is None else list(envelopes)
    if len(given) != len(conversation):
        raise ConversionError(
            f"{len(given)} envelopes for {len(conversation)} messages: give one per message (None for none)",
            index=None,
        )
    return [
        _to_one(lm, message, index, envelope or _EMPTY, strict)
        for index, (message, envelope) in enumerate(zip(conversation, given, strict=True))
    ]
