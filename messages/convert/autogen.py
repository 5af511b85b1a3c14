"""Messages to AutoGen ``LLMMessage`` lists and back (``pip install 'llm-messages[autogen]'``).

AutoGen (``autogen_core.models``) keeps a conversation as ``SystemMessage``, ``UserMessage``,
``AssistantMessage`` and ``FunctionExecutionResultMessage`` objects:

==================  =====================================================================================
ours                AutoGen
==================  =====================================================================================
``SystemMessage``   ``SystemMessage`` (string content)
``UserMessage``     ``UserMessage``: a string, or a list of strings (text parts) and ``Image`` objects
                    (image parts); ``name`` as ``source``, no name as ``source=user_source``
                    (``"user"``, what AssistantAgent records for a user's task)
``AIMessage``       ``AssistantMessage``: a turn with tool calls holds them as ``FunctionCall`` objects
                    (id, name, the arguments' exact string) and its text as ``thought``, which is where
                    AutoGen's model clients put the text that comes beside calls (and where its OpenAI
                    client sends it from); a turn without calls holds its text as ``content`` and its
                    ``reasoning_content`` as ``thought`` (AutoGen's place for a reasoning model's
                    thinking); a turn with neither text nor calls is ``content=[]``. ``name`` as ``source``,
                    no name as ``source=assistant_source``
``ToolMessage``     the consecutive tool results after a turn form one ``FunctionExecutionResultMessage``,
                    one ``FunctionExecutionResult`` each (``call_id``, ``content``, ``is_error`` as given,
                    ``name``: the result's own, else the name of the call it answers)
==================  =====================================================================================

``from_autogen(to_autogen(c)) == c`` for every conversation ``to_autogen`` converts. What AutoGen has no
place for raises ``ConversionError`` naming the message index and the field: a ``developer`` role, a name
on a system message, system text as parts, a ``name`` equal to the source that stands for no name,
audio, file and video parts, an image's ``detail``, an image that is not a base64 data URL (AutoGen's
``Image`` holds pixels, not a URL), assistant text as parts, a tool-call turn's ``reasoning_content``
(``thought`` holds its text), a reply with reasoning but neither text nor calls, a refusal, thinking blocks,
provider fields, a reply's annotations, images and audio, prompt-cache marks, a tool result of parts, a
result with no name whose call is not in the conversation, and a result ``name`` equal to its call's name
(it would come back unset: leave it unset).

Images. AutoGen's ``Image`` keeps the decoded picture (PIL, converted to RGB) and writes it out again as a
PNG. An image part converts when its data URL is exactly what AutoGen writes back (a PNG as PIL saves it);
any other image (a JPEG, a PNG saved by another encoder) would come back as different bytes, so it raises,
unless ``reencode_images=True`` accepts AutoGen's re-encoding. PIL is imported only when a conversation
holds an image (autogen-core itself imports it).

``from_autogen`` reads every ``LLMMessage``:

* a ``FunctionExecutionResultMessage`` becomes one ``ToolMessage`` per result, in order (none for an empty
  one, which holds nothing); a result's ``name`` is kept unless it is the name of the call it answers;
* AutoGen allows empty call ids ("this ID may be empty for some models"), which no provider accepts
  back: a call with id ``""`` gets ``autogen_call_<n>`` (its position in its turn; ``_`` is added until
  the id is unused in the turn), and a result with ``call_id=""`` answers the first empty-id call of the
  latest turn that no earlier such result answered, in order, as AutoGen's agents run them. A result with
  an empty ``call_id`` and no such call left raises ``ConversionError``;
* ``source`` equal to ``user_source`` (for a user message) or ``assistant_source`` (for an assistant
  message) reads back as no ``name``; any other source is the ``name``.

autogen-core is imported inside the functions, never by ``import messages``.
"""

from __future__ import annotations

import binascii
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from messages.convert._guard import article, refuse_unmapped
from messages.errors import ConversionError
from messages.models import AIMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages.parts import ContentPart, ImagePart, TextPart
from messages.protocol import check_types

if TYPE_CHECKING:
    from autogen_core.models import LLMMessage

__all__ = ["from_autogen", "to_autogen"]

DEFAULT_USER_SOURCE = "user"
DEFAULT_ASSISTANT_SOURCE = "assistant"
_MINTED = "autogen_call_"
_UNHELD_REPLY_FIELDS = ("refusal", "thinking_blocks", "provider_specific_fields", "provider")


def _import() -> Any:
    try:
        import autogen_core.models as agm
    except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
        raise ImportError(
            "messages.convert's AutoGen converters need autogen-core: pip install 'llm-messages[autogen]'"
        ) from exc
    return agm


def _error(index: int, part: int | str | None, what: str) -> ConversionError:
    where = f"message {index}" if not isinstance(part, int) else f"message {index}, content part {part}"
    return ConversionError(f"{where}: {what}", index=index, part=part)


# --- to AutoGen ----------------------------------------------------------------------------------------


def _image(part: ImagePart, index: int, position: int, reencode: bool) -> Any:
    from autogen_core import Image

    if part.detail is not None:
        raise _error(
            index, position, f"an image detail ({part.detail!r}), which AutoGen's Image has no place for"
        )
    url = part.url
    head, _, data = url.partition(",")
    if not (head.startswith("data:image/") and head.endswith(";base64")):
        raise _error(
            index,
            position,
            "an image given by URL: AutoGen's Image holds the picture itself (load it and give a base64 data "
            "URL)",
        )
    try:
        image = Image.from_base64(data)
    except (binascii.Error, ValueError, OSError) as exc:
        raise _error(index, position, f"an image whose data AutoGen's Image cannot read ({exc})") from None
    if not reencode and image.data_uri != url:
        raise _error(
            index,
            position,
            "an image that AutoGen's Image would give back as different bytes (it keeps the picture and "
            "writes it out again as an RGB PNG); pass reencode_images=True to accept that",
        )
    return image


def _source(message: UserMessage | AIMessage, index: int, default: str, keyword: str) -> str:
    if message.name is None:
        return default
    if message.name == default:
        raise _error(
            index,
            "name",
            f"the name {message.name!r} is the source that stands for no name ({keyword}), so it would come "
            f"back unset; leave the name unset, or pass another {keyword}",
        )
    return message.name


def _user(agm: Any, message: UserMessage, index: int, source: str, reencode: bool) -> Any:
    content: Any
    if isinstance(message.content, str):
        content = message.content
    else:
        content = []
        for position, part in enumerate(message.content):
            if isinstance(part, TextPart):
                content.append(part.text)
            elif isinstance(part, ImagePart):
                content.append(_image(part, index, position, reencode))
            else:
                raise _error(
                    index,
                    position,
                    f"{article(part.type)} {part.type!r} part, which AutoGen's UserMessage has no place for",
                )
    return agm.UserMessage(content=content, source=_source(message, index, source, "user_source"))


def _assistant(agm: Any, message: AIMessage, index: int, source: str) -> Any:
    from autogen_core import FunctionCall

    for field in _UNHELD_REPLY_FIELDS:
        if getattr(message, field) is not None:
            raise _error(index, field, f"AutoGen's AssistantMessage has no place for {field}")
    if isinstance(message.content, list):
        raise _error(index, "content", "assistant text as parts: AutoGen holds a reply's text as one string")
    sender = _source(message, index, source, "assistant_source")
    if message.tool_calls:
        if message.reasoning_content is not None:
            raise _error(
                index,
                "reasoning_content",
                "reasoning beside tool calls: AutoGen's thought holds the text of a tool-call turn, and has "
                "no second place for reasoning",
            )
        calls = []
        for call in message.tool_calls:
            if call.provider_specific_fields is not None:
                raise _error(
                    index,
                    "tool_calls",
                    f"provider fields on call {call.id!r}, which a FunctionCall cannot hold",
                )
            calls.append(FunctionCall(id=call.id, arguments=call.arguments, name=call.name))
        return agm.AssistantMessage(content=calls, thought=message.content, source=sender)
    if message.content is None:
        if message.reasoning_content is not None:
            raise _error(
                index,
                "reasoning_content",
                "reasoning with neither text nor tool calls: AutoGen reads the thought of such a turn as its "
                "text",
            )
        return agm.AssistantMessage(content=[], source=sender)
    return agm.AssistantMessage(content=message.content, thought=message.reasoning_content, source=sender)


def _result(agm: Any, message: ToolMessage, index: int, calls: dict[str, str]) -> Any:
    if not isinstance(message.content, str):
        raise _error(
            index, "content", "a tool result of parts: AutoGen's FunctionExecutionResult holds a string"
        )
    called = calls.get(message.tool_call_id)
    if message.name is not None and message.name == called:
        raise _error(
            index,
            "name",
            f"a result named {message.name!r} like the call it answers: it would come back unset (AutoGen "
            "records the call's name); leave it unset",
        )
    name = message.name if message.name is not None else called
    if name is None:
        raise _error(
            index,
            "name",
            f"the result of {message.tool_call_id!r} answers no call of this conversation and has no name, "
            "and AutoGen's FunctionExecutionResult needs the tool's name",
        )
    return agm.FunctionExecutionResult(
        content=message.content, name=name, call_id=message.tool_call_id, is_error=message.is_error
    )


def to_autogen(
    messages: Iterable[Message],
    *,
    user_source: str = DEFAULT_USER_SOURCE,
    assistant_source: str = DEFAULT_ASSISTANT_SOURCE,
    reencode_images: bool = False,
) -> list[LLMMessage]:
    """The messages as AutoGen ``LLMMessage`` objects (see the table in this module's docstring).

    ``user_source`` and ``assistant_source`` are the ``source`` of a user or assistant message without a
    ``name``. Raises ``MessageTypeError`` for an item that is not a message, and ``ConversionError`` naming
    the message and the field for what AutoGen cannot hold.

    Args:
        messages: messages of this package, in order.
        user_source: the ``source`` of a user message without a ``name``.
        assistant_source: the ``source`` of an assistant message without a ``name``.
        reencode_images: accept that AutoGen re-encodes an image (its bytes may change); without it,
            such an image is refused.

    Returns:
        AutoGen ``LLMMessage`` objects; the results of one turn in one ``FunctionExecutionResultMessage``.

    Raises:
        MessageTypeError: an item is not a ``Message``.
        ConversionError: something AutoGen's types cannot hold, or an image AutoGen would re-encode (unless
            ``reencode_images=True``): the message index and the field named.
        ImportError: autogen-core is not installed (``pip install 'llm-messages[autogen]'``).
    """
    agm = _import()
    conversation = list(messages)
    check_types(conversation)
    refuse_unmapped(conversation, "AutoGen", is_error_false=True)
    out: list[Any] = []
    results: list[Any] = []
    calls: dict[str, str] = {}  # the latest turn's tool-call ids -> names, for the results
    for index, message in enumerate(conversation):
        if isinstance(message, ToolMessage):
            results.append(_result(agm, message, index, calls))
            continue
        if results:
            out.append(agm.FunctionExecutionResultMessage(content=results))
            results = []
        if isinstance(message, SystemMessage):
            if message.role == "developer":
                raise _error(
                    index, "role", "AutoGen has no developer role; its instructions are a SystemMessage"
                )
            if message.name is not None:
                raise _error(index, "name", "AutoGen's SystemMessage has no name")
            if not isinstance(message.content, str):
                raise _error(index, "content", "system text as parts: AutoGen's SystemMessage holds a string")
            out.append(agm.SystemMessage(content=message.content))
        elif isinstance(message, UserMessage):
            out.append(_user(agm, message, index, user_source, reencode_images))
        else:
            out.append(_assistant(agm, message, index, assistant_source))
            calls = {call.id: call.name for call in message.tool_calls}
    if results:
        out.append(agm.FunctionExecutionResultMessage(content=results))
    return out


# --- from AutoGen --------------------------------------------------------------------------------------


class _Turn:
    """The latest assistant turn's calls as read: their ids and names, and the empty-id calls still open."""

    def __init__(self, *, alone: bool = False) -> None:
        self.names: dict[str, str] = {}
        self.minted: list[str] = []  # ids given to the turn's empty-id calls not yet answered, in order
        self.alone = alone  # a result message read without its turn (read_alone)

    def read_calls(self, calls: Sequence[Any], index: int) -> list[ToolCall]:
        given = {call.id for call in calls if call.id}
        self.names = {}
        self.minted = []
        out = []
        for position, call in enumerate(calls):
            call_id = call.id
            if not call_id:
                call_id = f"{_MINTED}{position}"
                while call_id in given:
                    call_id += "_"
                given.add(call_id)
                self.minted.append(call_id)
            try:
                out.append(ToolCall(id=call_id, name=call.name, arguments=call.arguments))
            except ValidationError as exc:
                raise _error(
                    index, "content", f"call {position} is not a valid tool call: {_problems(exc)}"
                ) from None
            self.names[call_id] = call.name
        return out

    def answer(self, call_id: str, index: int, position: int) -> str:
        if call_id:
            return call_id
        if self.alone:
            return f"{_MINTED}{position}"
        if not self.minted:
            raise ConversionError(
                f"message {index}, result {position}: an empty call_id, and no call with an empty id is left "
                "unanswered in the turn before it, so which call it answers is not known",
                index=index,
                part="call_id",
            )
        return self.minted.pop(0)


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}" for e in exc.errors())


def _parts_from(content: Sequence[Any], index: int) -> list[ContentPart]:
    from autogen_core import Image

    parts: list[ContentPart] = []
    for position, item in enumerate(content):
        if isinstance(item, str):
            parts.append(TextPart(text=item))
        elif isinstance(item, Image):
            parts.append(ImagePart(url=item.data_uri))
        else:
            raise _error(
                index, position, f"a {type(item).__name__} content item, which no part of this package holds"
            )
    return parts


def _name(source: str, default: str) -> str | None:
    return None if source == default else source


def _read(
    agm: Any, message: Any, index: int, turn: _Turn, user_source: str, assistant_source: str
) -> list[Message]:
    """One AutoGen message as messages of this package (a result message as one per result)."""
    if isinstance(message, agm.SystemMessage):
        return [SystemMessage(content=message.content)]
    if isinstance(message, agm.UserMessage):
        content: Any = message.content
        if not isinstance(content, str):
            content = _parts_from(content, index)
        return [UserMessage(content=content, name=_name(message.source, user_source))]
    if isinstance(message, agm.AssistantMessage):
        name = _name(message.source, assistant_source)
        if isinstance(message.content, str):
            turn.read_calls((), index)  # a turn without calls: no later result answers an older one
            return [AIMessage(content=message.content, reasoning_content=message.thought, name=name)]
        calls = turn.read_calls(message.content, index)
        return [AIMessage(content=message.thought, tool_calls=calls, name=name)]
    if isinstance(message, agm.FunctionExecutionResultMessage):
        results: list[Message] = []
        for position, result in enumerate(message.content):
            call_id = turn.answer(result.call_id, index, position)
            # Alone, the call is not at hand: the result's name is taken to be its call's, as it nearly
            # always is (and as a provider's request leaves it out).
            named = None if turn.alone or result.name == turn.names.get(call_id) else result.name
            results.append(
                ToolMessage(
                    tool_call_id=call_id, content=result.content, name=named, is_error=result.is_error
                )
            )
        return results
    raise ConversionError(
        f"message {index} is a {type(message).__name__}, not an AutoGen LLMMessage (SystemMessage, "
        "UserMessage, AssistantMessage or FunctionExecutionResultMessage)",
        index=index,
    )


def from_autogen(
    messages: Iterable[LLMMessage],
    *,
    user_source: str = DEFAULT_USER_SOURCE,
    assistant_source: str = DEFAULT_ASSISTANT_SOURCE,
) -> list[Message]:
    """AutoGen ``LLMMessage`` objects as messages of this package (see this module's docstring).

    Args:
        messages: AutoGen ``LLMMessage`` objects, in order (a model context's messages).
        user_source: the ``source`` that means no ``name`` on a user message.
        assistant_source: the ``source`` that means no ``name`` on an assistant message.

    Returns:
        The messages; a ``FunctionExecutionResultMessage`` gives one ``ToolMessage`` per result.

    Raises ``ConversionError`` naming the message index (and the result, for a result message) for what
    cannot be read: an item that is not an ``LLMMessage``, a call or result this package cannot hold (an
    empty tool name), a result with an empty ``call_id`` that answers no call.

    Raises:
        ConversionError: a message a message of this package cannot hold (the message index and the field
            named).
        ImportError: autogen-core is not installed (``pip install 'llm-messages[autogen]'``).

    Examples:
        ```python
        from autogen_core.models import AssistantMessage, UserMessage
        from messages import AIMessage
        from messages import UserMessage as User
        from messages.convert import from_autogen, to_autogen

        history = [UserMessage(content="Hi", source="user"),
                   AssistantMessage(content="Hello!", source="assistant")]
        conversation = from_autogen(history)
        assert conversation == [User(content="Hi"), AIMessage(content="Hello!")]
        assert to_autogen(conversation) == history
        ```
    """
    agm = _import()
    out: list[Message] = []
    turn = _Turn()
    for index, message in enumerate(messages):
        try:
            out.extend(_read(agm, message, index, turn, user_source, assistant_source))
        except ValidationError as exc:
            raise ConversionError(
                f"message {index}: not a valid message here: {_problems(exc)}", index=index
            ) from None
    return out


def read_alone(message: LLMMessage) -> list[Message]:
    """One AutoGen message on its own, as ``from_autogen`` reads it, for counting its tokens. The call a
    result answers is not at hand: a result with an empty ``call_id`` gets the id its call would be given
    (``autogen_call_<position>``), and a result's name is left unset, as when it is its call's. Raises
    what ``from_autogen`` raises."""
    agm = _import()
    turn = _Turn(alone=True)
    try:
        return _read(agm, message, 0, turn, DEFAULT_USER_SOURCE, DEFAULT_ASSISTANT_SOURCE)
    except ValidationError as exc:
        raise ConversionError(f"message: not a valid message here: {_problems(exc)}", index=0) from None
