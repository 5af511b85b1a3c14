"""Whole conversations to and from the wire: ``load_messages`` and ``dump_messages``.

``load_messages`` is one call into pydantic-core for the whole list, with the cyclic garbage collector
paused (``collector_paused``); ``dump_messages`` uses each class's compiled dumper (``messages._wire``),
which gives the same dicts as ``model_dump()``.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from types import TracebackType
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, TypeAdapter

from messages._wire import DUMPERS, Dumper
from messages.models import AIMessage, Message, SystemMessage, ToolMessage, UserMessage
from messages.protocol import check_types, validate_conversation, validated_call_ids

if TYPE_CHECKING:
    from messages.profiles import Profile
    from messages.profiles._profile import OnUnfixable

__all__ = ["MESSAGE_LIST", "collector_paused", "dump_messages", "load_messages"]

MESSAGE_LIST: TypeAdapter[list[Message]] = TypeAdapter(
    list[Message], config=ConfigDict(defer_build=True, cache_strings=False)
)
"""Validates and serializes whole conversations (built on first use, not at import).

``cache_strings=False``: pydantic's cache of short JSON strings costs more than it saves on a conversation,
whose texts are mostly distinct (measured 2% to 7% off a 10,000-message load, 4% to 11% off the spans a
store reads; the values are the same)."""


class collector_paused:  # noqa: N801 - used as a function
    """A block during which the cyclic garbage collector does not run, if it was enabled when entered.

    Loading builds a few objects per message, none of them in a cycle; the collector, triggered by the
    count of new objects, would walk the whole growing heap again and again (CPython 3.11: a 100,000-message
    thread read 2.8 times slower with it on, 10,000 messages 1.2 times; ``python -m benchmarks stores``
    shows the figure with the collector on). It runs again on the next allocations after the block.

    The collector's switch is the process's: a ``gc.disable()`` made by another thread while the block
    runs is undone when it ends (which only lets the collector run, as it does by default). With the
    collector disabled on entry, the block changes nothing.
    """

    __slots__ = ("_resume",)

    def __enter__(self) -> None:
        self._resume = gc.isenabled()
        if self._resume:
            gc.disable()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._resume:
            gc.enable()


class _MessageDumpers(dict[type, Dumper]):
    """The compiled dumpers of the message classes (and their subclasses) only: a content part or a tool
    call given where a message belongs misses here, and ``dump_messages`` names it, even without the
    protocol check that would otherwise catch it."""

    def __missing__(self, cls: type) -> Dumper:
        if not (
            isinstance(cls, type) and issubclass(cls, (SystemMessage, UserMessage, AIMessage, ToolMessage))
        ):
            raise KeyError(cls)
        dumper = self[cls] = DUMPERS[cls]
        return dumper


_MESSAGE_DUMPERS = _MessageDumpers()


def load_messages(data: str | bytes | bytearray | Iterable[Any]) -> list[Message]:
    """Read a conversation: a JSON string (or bytes) of a list, or a list of OpenAI-shape dicts.

    Args:
        data: the JSON text of a list of messages, or the list itself (dicts in the OpenAI Chat
            Completions shape, as ``dump_messages`` gives them and litellm's request logs hold them).

    Returns:
        The typed messages, in order: equal to the ones that were dumped.

    Raises:
        pydantic.ValidationError: an item is not a message (the index, the field and the valid choices named:
            an unknown role, a tool message without ``tool_call_id``, content of the wrong type), or the
            text is not JSON.

    Examples:
        ```python
        from messages import AIMessage, UserMessage, load_messages

        saved = '[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hey"}]'
        assert load_messages(saved) == [UserMessage(content="Hi"), AIMessage(content="Hey")]
        ```
    """
    if isinstance(data, (str, bytes, bytearray)):
        with collector_paused():
            return MESSAGE_LIST.validate_json(data)
    listed = data if isinstance(data, list) else _as_list(data)
    with collector_paused():
        return MESSAGE_LIST.validate_python(listed)


def _as_list(data: Any) -> Any:
    # A dict is iterable (over its keys) but is one message, not a list of them: let validation say so.
    if isinstance(data, Iterable) and not isinstance(data, dict):
        return list(data)
    return data


def dump_messages(
    messages: Iterable[Message],
    model: str | None = None,
    *,
    profile: Profile | str | None = None,
    validate: bool = True,
    on_unfixable: OnUnfixable = "raise",
) -> list[dict[str, Any]]:
    """The conversation as a list of OpenAI-shape dicts, ready for ``litellm.completion(messages=...)``.

    With ``validate`` (the default) the tool-call protocol is checked first (``validate_conversation``).
    With ``model`` (a litellm model string such as ``"gemini/gemini-2.5-flash"``) or ``profile`` (a
    ``Profile`` or a provider name), the provider profile adjusts the list for that provider; what it
    cannot fix (content the provider has no form for, a tool name it rejects...) raises
    ``UnfixableError``, listing each message, part and quirk, and nothing is returned to send, unless
    ``on_unfixable="send"``.

    Args:
        messages: the conversation, typed messages in order.
        model: a litellm model string; its provider's profile adjusts the list.
        profile: a ``Profile``, or a provider name, to adjust the list with instead of ``model``'s.
        validate: check the tool-call protocol first (``validate_conversation``).
        on_unfixable: ``"raise"`` refuses what the profile cannot fix; ``"send"`` returns the list
            anyway, for a caller who knows better.

    Returns:
        A new list of OpenAI-shape dicts, for ``litellm.completion(messages=...)``.

    Raises:
        MessageTypeError: an item of ``messages`` is not a ``Message`` (a dict: read it with
            ``load_messages``).
        ConversationError: with ``validate=True``, the tool-call protocol is broken (an
            ``OrphanToolResultError``, ``UnansweredToolCallError``, ``DuplicateToolCallIdError`` or
            ``EmptyConversationError``, naming the message and the ids).
        UnfixableError: with a model or profile, what its provider cannot take and the profile cannot fix
            (unless ``on_unfixable="send"``).
        ValueError: ``on_unfixable`` is neither ``"raise"`` nor ``"send"``.

    Examples:
        ```python
        from messages import AIMessage, ToolCall, ToolMessage, UserMessage, dump_messages

        call = ToolCall(id="call_abc123DEF456ghi789", name="weather", arguments={"at": "Oslo"})
        conversation = [UserMessage(content="Weather in Oslo?"), AIMessage(tool_calls=[call]),
                        ToolMessage.for_call(call, "rain")]
        assert dump_messages(conversation)[2] == {
            "role": "tool", "tool_call_id": "call_abc123DEF456ghi789", "content": "rain"}
        # For Mistral: ids of 9 letters and digits, the call's and its result's alike.
        sent = dump_messages(conversation, model="mistral/mistral-large-latest")
        assert sent[1]["tool_calls"][0]["id"] == sent[2]["tool_call_id"] != call.id
        ```
    """
    conversation = list(messages)
    target = profile if profile is not None else model
    call_ids = None
    if validate and target is None:
        validate_conversation(conversation)
    elif validate:  # the check gathers the call ids on its way, for a profile's id rule
        call_ids = validated_call_ids(conversation)
    try:
        dumped = [_MESSAGE_DUMPERS[m.__class__](m) for m in conversation]
    except KeyError:
        check_types(conversation)
        raise
    if target is None:
        return dumped
    from messages.profiles import Profile, get_profile

    resolved = target if isinstance(target, Profile) else get_profile(target)
    # The dumped dicts are ours: fixed in place where that is faster.
    return resolved._apply_owned(dumped, call_ids, on_unfixable)
