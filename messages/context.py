"""Chat-completion contexts: windows over a conversation that never split a tool call from its results.

A context keeps the whole history a bot adds to it (``add_message``) and returns a window of it to send
(``get_messages``). The API follows AutoGen's ``autogen_core.model_context`` (unbounded, buffered,
head-and-tail and token-limited contexts with ``save_state`` / ``load_state``), synchronous, and without the
bugs that make those windows break the tool-call protocol (AutoGen #7955, LangChain #33245).

The rules every window follows:

* **Whole exchanges.** The history after its leading system messages is cut into *units*: a message that is
  not a tool result, with the tool results that directly follow it. An assistant turn with tool calls and
  all its results is one unit. A window keeps or drops whole units, so it never separates a call from its
  results, and never starts with a tool result unless the history does.
* **Leading system messages are always kept**, whatever the bound. (A system message later in the
  conversation is a unit like any other.)
* **The newest unit is always kept.** It is what the model must answer, and a window without it would be
  empty or end before the last message. Otherwise a window never exceeds its bound: the unit that does not
  fit is dropped whole, with everything older than it.
* **When a window exceeds its bound.** Only when what it must keep does not fit, in two cases: (1) the
  newest unit alone is larger than what the bound leaves for it (a turn with many parallel calls, a large
  tool result); (2) for ``TokenLimitedContext`` only, whose limit counts everything sent, the leading
  system messages and the list's fixed overhead alone reach the limit. In both, the window is the leading
  system messages and the newest unit, and nothing older. The message-count windows have no second case:
  their bounds count the messages after the leading system messages, which are kept on top of them (and
  ``HeadAndTailContext``'s placeholder is one message on top of its head and tail).
* **Order.** A window is a subsequence of the history, in order (plus, for ``HeadAndTailContext``, one
  placeholder message where messages were left out).

So ``get_messages()`` passes ``validate_conversation`` whenever the whole history does: whole units, in
order, with the ids they had, cannot break the protocol, and a window of a non-empty history is never empty.

**A window never repairs and never raises.** When the history itself breaks the protocol, the window cuts it
by the same rules and shows the problem as it is, if the problem falls inside the window. The common case is
a bot in its tool loop: it adds the assistant's tool-call turn, then the results one by one, and may read the
window in between; the open exchange is the newest unit, so the window holds it whole, with its calls still
unanswered, exactly as the history does, and passes validation once the last result is in. Inventing results
for calls still running would be false, and raising would break the loop; to send a window that is still
open, call ``repair_conversation`` on it.

The settings are fixed at construction; ``save_state`` / ``load_state`` carry the history, not the settings.
Each window keeps the position where it starts and moves it forward as messages arrive, so adding a message
and reading the window costs amortized O(1) beyond copying the window itself, and the copy is O(size of the
window): ``get_messages`` returns a new list. A window that holds the whole history (``UnboundedContext``,
or a token counter that counts 0 for every message) therefore copies the whole history on each read, O(n)
per read; keep a reference to the window instead of reading it again when nothing was added. Token counts
are cached per message. Contexts are not thread-safe.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from messages._counts import SharedCounts, shared_counts
from messages._io import dump_messages, load_messages
from messages._litellm import counts_file_parts
from messages._tokens import OVERHEAD, direct_counter
from messages._window import (
    Part,
    ReadPlan,
    Suffix,
    TokenWindow,
    Units,
    checked_count,
    counter_argument,
    head_and_tail_window,
    positive_int,
    suffix_window,
)
from messages.errors import ContextStateError, MessageTypeError
from messages.models import AIMessage, Message, SystemMessage, ToolMessage, UserMessage
from messages.parts import AudioPart, FilePart, ImagePart, VideoPart

__all__ = [
    "STATE_VERSION",
    "BufferedContext",
    "ChatCompletionContext",
    "HeadAndTailContext",
    "MessageTokenCounter",
    "TokenCounter",
    "TokenLimitedContext",
    "UnboundedContext",
    "skipped_messages_note",
]

STATE_VERSION = 2
"""The newest version ``save_state`` writes; ``load_state`` reads states up to this version. Version 1
holds a whole history; version 2 (written only by a window that a store read gave part of its thread, see
``LocalThread.read``) adds ``"omitted": {"at": index, "count": n}``: ``n`` messages of the history left
out before ``messages[index]``."""

_MESSAGE_TYPES = (SystemMessage, UserMessage, AIMessage, ToolMessage)
_STATE_KEYS = frozenset({"type", "version", "messages"})
_STATE_KEYS_2 = _STATE_KEYS | {"omitted"}


def _check_message(message: Any, where: str) -> Message:
    if not isinstance(message, _MESSAGE_TYPES):
        raise MessageTypeError(
            f"{where} is a {type(message).__name__}, not a Message; read dicts with load_messages() first"
        )
    return message


class ChatCompletionContext(ABC):
    """A conversation history and the window of it to send; the base of every context in this module.

    ``initial_messages`` start the history. The module docstring gives the rules every window follows.

    Args:
        initial_messages: the messages the history starts with, in order (default: none).

    Raises:
        MessageTypeError: an item of ``initial_messages`` is not a ``Message``.
    """

    def __init__(self, initial_messages: Iterable[Message] | None = None) -> None:
        self._history: list[Message] = []
        self._units = Units()  # the leading system messages and where each unit after them starts
        self._reset()
        for index, message in enumerate(initial_messages or ()):
            self._append(_check_message(message, f"initial message {index}"))

    # -- the history --------------------------------------------------------------------------------------

    def add_message(self, message: Message) -> None:
        """Add ``message`` at the end of the history.

        Args:
            message: the message that comes next in the conversation.

        Raises:
            MessageTypeError: ``message`` is not a ``Message`` (a dict: read it with ``load_messages``).
        """
        self._append(_check_message(message, "the message to add"))

    def _append(self, message: Message) -> None:
        self._history.append(message)
        # A tool result joins the unit before it; one right after the leading system messages (an orphan,
        # in a broken history) starts a unit of its own.
        self._units.add(isinstance(message, SystemMessage), isinstance(message, ToolMessage))

    @property
    def history(self) -> list[Message]:
        """Every message added so far, in order (a new list). After ``LocalThread.read(store, window)``,
        the messages the read gave the window: what it keeps of the thread, without those it leaves
        out."""
        return list(self._history)

    @abstractmethod
    def get_messages(self) -> list[Message]:
        """The window to send: a new list (see the class docstring for its bound).

        Returns:
            The messages of the window, in order.

        Raises nothing.
        """

    def clear(self) -> None:
        """Empty the history, initial messages included.

        Raises nothing.
        """
        self._history = []
        self._units.clear()
        self._reset()

    def _reset(self) -> None:  # noqa: B027 - a hook: the unbounded window derives nothing
        """Forget what the window derived from the history (the history was replaced)."""

    def _read_plan(self) -> ReadPlan | None:
        """What a store read must give this window (``messages._window``); ``None``: the whole thread."""
        return None

    def _load_part(self, part: Part) -> None:
        """Replace the history with the part of a thread a store read gave: ``part.head``, then
        ``part.omitted`` messages left out, then ``part.tail`` (at once: what ``_append`` does for each
        message, and ``_reset`` for the new history)."""
        self.clear()
        self._history = [*part.head, *part.tail]
        self._units.add_roles([message.role for message in part.head])
        self._units.mark_gap(part.omitted)
        self._units.add_roles([message.role for message in part.tail])
        self._reset()

    # -- state --------------------------------------------------------------------------------------------

    def save_state(self) -> dict[str, Any]:
        """The history as a JSON-able dict: ``{"type": <class name>, "version": 1, "messages": [...]}``.

        The messages are in their OpenAI wire shape (``model_dump()``). The state holds the history, not the
        settings (sizes, limits, token counters, placeholder), which stay those of the context that loads it:
        AutoGen likewise keeps a context's configuration apart from its state.

        Returns:
            A new dict that ``json.dumps`` can write and ``load_state`` reads back.

        Raises nothing.
        """
        state: dict[str, Any] = {
            "type": type(self).__name__,
            "version": 1,
            "messages": dump_messages(self._history, validate=False),
        }
        if self._units.gap is not None:
            state["version"] = 2
            state["omitted"] = {"at": self._units.gap, "count": self._units.omitted}
        return state

    def load_state(self, state: Mapping[str, Any]) -> None:
        """Replace the history with the one ``state`` holds (from ``save_state`` of this class).

        Raises ``ContextStateError``, and leaves this context unchanged, for a state that is not a mapping,
        that another context class saved, that a newer version wrote, or whose messages do not read.

        Args:
            state: what ``save_state`` of a context of this class returned (or its JSON, read back).

        Raises:
            ContextStateError: ``state`` is not a state this context can load (not a mapping, an unknown
                version, messages that do not read); the context is left as it was.
        """
        messages, gap, omitted = self._read_state(state)
        self._load_part(Part(messages[:gap], omitted, messages[gap:]))

    def _read_state(self, state: Any) -> tuple[list[Message], int, int]:
        name = type(self).__name__
        if not isinstance(state, Mapping):
            raise ContextStateError(
                f"cannot load a {type(state).__name__} into a {name}: a state is the dict that save_state() "
                "returns"
            )
        missing = sorted(_STATE_KEYS - state.keys())
        if missing:
            raise ContextStateError(
                f"the state has no {', '.join(repr(k) for k in missing)}: it is not one save_state() wrote "
                f"(it has {sorted(map(str, state.keys()))})"
            )
        saved_by = state["type"]
        if saved_by != name:
            raise ContextStateError(
                f"the state was saved by {saved_by!r}, not by a {name}: load it into a {saved_by}, or read "
                "its 'messages' with load_messages() and add them to this context"
            )
        version = state["version"]
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise ContextStateError(f"the state's version is {version!r}, not a version number (1, 2, ...)")
        if version > STATE_VERSION:
            raise ContextStateError(
                f"the state was written by a newer version of this package (state version {version}); this "
                f"version reads state version {STATE_VERSION} and older: upgrade llm-messages to load it"
            )
        extra = sorted(map(str, state.keys() - (_STATE_KEYS if version == 1 else _STATE_KEYS_2)))
        if extra:
            raise ContextStateError(
                f"the state has keys that version {version} does not write: {extra}; it was changed by hand "
                "or by other code"
            )
        raw = state["messages"]
        if not isinstance(raw, list):
            raise ContextStateError(
                f"the state's 'messages' is a {type(raw).__name__}, not a list of messages"
            )
        try:
            messages = load_messages(raw)
        except ValidationError as exc:
            raise ContextStateError(f"the state's 'messages' do not read as messages: {exc}") from None
        omitted = state.get("omitted")
        if omitted is None:
            return messages, len(messages), 0
        at, count = (
            (omitted.get("at"), omitted.get("count")) if isinstance(omitted, Mapping) else (None, None)
        )
        if not (
            isinstance(at, int) and isinstance(count, int) and 0 <= at <= len(messages) and count >= 0
        ) or isinstance(at, bool):
            raise ContextStateError(
                f"the state's 'omitted' is {omitted!r}, not {{'at': an index into 'messages', 'count': a "
                "number of messages}"
            )
        return messages, at, count


class UnboundedContext(ChatCompletionContext):
    """A context whose window is the whole history: no bound, nothing left out."""

    def get_messages(self) -> list[Message]:
        """Every message of the history, in order.

        Returns:
            A new list of the whole history.

        Raises nothing.
        """
        return list(self._history)


class BufferedContext(ChatCompletionContext):
    """A window of the last ``buffer_size`` messages of the conversation, in whole exchanges.

    The bound counts the messages after the leading system messages, which are always kept on top of it:
    ``BufferedContext(10)`` sends the instructions and the last 10 messages at most. It is reached in whole
    units (see the module docstring): the newest units whose messages add up to at most ``buffer_size``,
    so an exchange that would not fit entirely is left out entirely, and the window may hold fewer than
    ``buffer_size`` messages. The newest unit is kept even when it alone has more than ``buffer_size``
    messages (a turn with many parallel calls): then the window is the leading system messages and that
    unit, and only then does it exceed the bound (however many leading system messages there are: they are
    not counted).

    Args:
        buffer_size: the most messages the window keeps after the leading system messages (at least 1).
        initial_messages: the messages the history starts with, in order (default: none).

    Raises:
        TypeError: ``buffer_size`` is not an int.
        ValueError: ``buffer_size`` is less than 1.
        MessageTypeError: an item of ``initial_messages`` is not a ``Message``.

    Examples:
        ```python
        from messages import AIMessage, SystemMessage, UserMessage
        from messages.context import BufferedContext

        window = BufferedContext(buffer_size=2)
        window.add_message(SystemMessage(content="Be brief."))
        for text in ["one", "two", "three"]:
            window.add_message(UserMessage(content=text))
            window.add_message(AIMessage(content="ok"))
        sent = window.get_messages()  # the instructions stay, on top of the 2
        assert [m.content for m in sent] == ["Be brief.", "three", "ok"]
        ```
    """

    def __init__(self, buffer_size: int, initial_messages: Iterable[Message] | None = None) -> None:
        self._buffer_size = positive_int(buffer_size, "buffer_size")
        self._suffix = Suffix()
        super().__init__(initial_messages)

    @property
    def buffer_size(self) -> int:
        """The most messages the window keeps after the leading system messages."""
        return self._buffer_size

    def _reset(self) -> None:
        self._suffix.reset()

    def _load_part(self, part: Part) -> None:
        super()._load_part(part)
        if part.placed:
            self._suffix.place(self._units, len(part.tail))

    def _read_plan(self) -> ReadPlan | None:
        if type(self).get_messages is not BufferedContext.get_messages:
            return None  # a subclass that chooses otherwise: it gets the whole thread
        return ReadPlan(tail=lambda lead: self.buffer_size)

    def get_messages(self) -> list[Message]:
        """The leading system messages and the newest whole units of at most ``buffer_size`` messages.

        Returns:
            The window, a new list.

        Raises nothing.
        """
        self._suffix.sync(self._units, self.buffer_size)
        return suffix_window(self._history, self._units, self._suffix.first)


def skipped_messages_note(count: int) -> UserMessage:
    """The default placeholder of ``HeadAndTailContext``: a user message saying ``count`` messages are left
    out, in brackets so that the model reads it as a note about the conversation and not as a request.

    Args:
        count: how many messages are left out.

    Returns:
        The note, such as ``"[3 earlier messages of this conversation are left out here.]"``.

    Raises nothing.
    """
    noun = "message" if count == 1 else "messages"
    verb = "is" if count == 1 else "are"
    return UserMessage(content=f"[{count} earlier {noun} of this conversation {verb} left out here.]")


class HeadAndTailContext(ChatCompletionContext):
    """A window of the first ``head_size`` and the last ``tail_size`` messages, with a placeholder between
    them that says exactly how many messages it stands for.

    Both bounds count messages after the leading system messages, which are always kept on top of them.
    When those messages number at most ``head_size + tail_size``, the window is the whole history, with no
    placeholder, as AutoGen's is: the history fits, wherever its exchanges fall. Only a longer history is
    cut. The head is then the oldest whole units of at most ``head_size`` messages (it stops at the first
    unit that does not fit); the tail is the newest whole units of at most ``tail_size`` messages. An
    exchange that sits across the boundary of either goes to the side that can hold it whole, or is left
    out whole; this keeps the most messages that any cut into a head within ``head_size`` and a tail within
    ``tail_size`` keeps, since a history longer than both bounds leaves the head and the tail nothing to
    trade (tests/test_context.py checks it against every such cut of small histories). The newest unit is
    always in the window, even when it alone is larger than ``tail_size``; only then does the tail exceed
    its bound. The leading system messages and the placeholder are on top of both bounds, so the window
    holds at most ``head_size + tail_size + 1`` messages after the leading system messages, except in that
    case. When head and tail leave nothing out, the window is the whole history.
    Otherwise one placeholder message goes between them, made by ``placeholder(count)`` where ``count`` is
    the number of history messages left out (between the head and the tail, whole units only): by default
    ``skipped_messages_note(count)``, a ``UserMessage``, which keeps the window valid (it sits between two
    whole units). A placeholder factory must return a message that is not a tool result and makes no tool
    calls. The default note may follow a tool result or a user message: OpenAI accepts that, and litellm
    merges consecutive user turns for Anthropic, Bedrock and Gemini; providers with a strict role order
    (quirks 20 and 31) are the provider profiles' concern.

    AutoGen's ``HeadAndTailChatCompletionContext`` counts ``len(messages) - head_size - tail_size`` skipped
    messages, which is wrong whenever it trims the head or the tail to avoid splitting a call from its result.
    Here the count is taken from what the window actually holds.

    Args:
        head_size: the most messages the head keeps after the leading system messages (0: no head).
        tail_size: the most messages the tail keeps (at least 1; the newest exchange is kept whole even
            when larger).
        initial_messages: the messages the history starts with, in order (default: none).
        placeholder: makes the message that stands for the ``count`` messages left out (default:
            ``skipped_messages_note``); it must not be a tool result or make tool calls.

    Raises:
        TypeError: ``head_size`` or ``tail_size`` is not an int.
        ValueError: ``head_size`` is negative, or ``tail_size`` is less than 1.
        MessageTypeError: an item of ``initial_messages`` is not a ``Message``.

    Examples:
        ```python
        from messages import AIMessage, UserMessage
        from messages.context import HeadAndTailContext

        window = HeadAndTailContext(head_size=2, tail_size=2)
        for n in range(1, 5):
            window.add_message(UserMessage(content=f"question {n}"))
            window.add_message(AIMessage(content=f"answer {n}"))
        sent = [m.content for m in window.get_messages()]
        assert sent[:2] == ["question 1", "answer 1"]  # the head: how it began
        assert sent[2] == "[4 earlier messages of this conversation are left out here.]"
        assert sent[3:] == ["question 4", "answer 4"]  # the tail: the newest
        ```
    """

    def __init__(
        self,
        head_size: int,
        tail_size: int,
        initial_messages: Iterable[Message] | None = None,
        *,
        placeholder: Callable[[int], Message] = skipped_messages_note,
    ) -> None:
        self._head_size = positive_int(head_size, "head_size", minimum=0)
        self._tail_size = positive_int(tail_size, "tail_size")
        self.placeholder = placeholder
        """Makes the message that stands for the ``count`` messages left out."""
        self._suffix = Suffix()
        super().__init__(initial_messages)

    @property
    def head_size(self) -> int:
        """The most messages the head keeps after the leading system messages (0: none)."""
        return self._head_size

    @property
    def tail_size(self) -> int:
        """The most messages the tail keeps (the newest unit is kept even when larger)."""
        return self._tail_size

    def _reset(self) -> None:
        self._suffix.reset()

    def _read_plan(self) -> ReadPlan | None:
        if type(self).get_messages is not HeadAndTailContext.get_messages:
            return None  # a subclass that chooses otherwise: it gets the whole thread
        return ReadPlan(tail=lambda lead: self.tail_size, head=self.head_size, tail_fixed=self.tail_size)

    def get_messages(self) -> list[Message]:
        """The leading system messages, the head, a placeholder for what is left out, and the tail.

        Returns:
            The window, a new list (the whole history when head and tail leave nothing out).

        Raises:
            MessageTypeError: the ``placeholder`` function returned something that is not a message.
            ValueError: the placeholder is a tool result or makes tool calls.
        """
        return head_and_tail_window(
            self._history, self._units, self._suffix, self.head_size, self.tail_size, self._note
        )

    def _note(self, count: int) -> Message:
        note = self.placeholder(count)
        _check_message(note, "the placeholder")
        if isinstance(note, ToolMessage) or (isinstance(note, AIMessage) and note.tool_calls):
            raise ValueError(
                "the placeholder must not be a tool result or make tool calls: it would break the tool-call "
                f"protocol of the window; got {note!r}"
            )
        return note


TokenCounter = Callable[[list[Message]], int]
"""Counts the tokens of a list of these messages. ``litellm.token_counter`` reads them as they are:
``lambda ms: litellm.token_counter(model=..., messages=ms)``. LangChain's counters
(``count_tokens_approximately``) read LangChain messages and raise on these, so convert them first:
``lambda ms: count_tokens_approximately(convert_to_messages(dump_messages(ms, validate=False)))``."""

MessageTokenCounter = Callable[[Message], int]
"""Counts the tokens of one message."""


class TokenLimitedContext(ChatCompletionContext):
    """A window of the newest whole exchanges that fit in ``token_limit`` tokens, with the instructions.

    What is counted. The window's size is ``overhead + sum(count(m) for m in window)``: a fixed overhead for
    the list, plus a count per message, each counted once and cached. How the counts are made:

    * ``model="gpt-4o-mini"`` (any litellm model string): litellm's ``token_counter`` for that model. The
      overhead is ``token_counter(messages=[])`` (3 tokens: the reply priming) and a message's count is
      ``token_counter(messages=[m]) - overhead`` (its content, role and other string fields, tool-call
      arguments, images, plus 3 or 4 tokens per message); litellm's count of a list is exactly the sum of
      these, so the window's size is what ``token_counter(messages=window)`` says. Tool definitions are not
      counted: subtract them from ``token_limit``. Counting needs no network: images are priced without
      fetching their URL, audio (which litellm cannot count) is priced like one image, and the tokenizer is
      the one litellm picks with ``litellm.disable_hf_tokenizer_download = True``, passed to each call
      (a ``llama-3`` model name otherwise stalls about 23 s per call retrying a
      tokenizer download offline), so models other than OpenAI's are counted with tiktoken, an
      approximation. litellm's own settings are left as they are: your ``litellm.token_counter`` calls
      behave as before. A message of text and tool calls is counted with tiktoken directly, without
      importing litellm (seconds on a bot's first turn), wherever that is litellm's count: every model of
      another provider than OpenAI (``cl100k_base``) and OpenAI's models tiktoken knows (``o200k_base``
      for ``gpt-4o`` and later), from the encoding files litellm ships (``python -m benchmarks
      context`` times the first count). litellm counts the rest (images, audio, files; Azure
      deployments), imported when first needed.
    * ``token_counter=f``, ``f(list_of_messages) -> int``: the overhead is ``f([])`` and a message's count is
      ``f([m]) - f([])``; this assumes ``f`` adds up per message, as litellm's counter and OpenAI's
      counting recipe do.
    * ``message_token_counter=g``, ``g(message) -> int``: the overhead is 0 and a message's count is
      ``g(m)``.

    How the bound and the no-split rule interact. Unlike the message-count windows, the token limit counts
    everything sent, the leading system messages included, since it stands for the model's context window:
    the system messages are always kept, and the newest whole units fill what is left of the limit. A unit
    that does not fit is dropped whole, with everything older than it. The window exceeds ``token_limit`` in
    two cases, in both of which it is the leading system messages and the newest unit: when the newest unit
    does not fit in what the system messages and the overhead leave (a large tool result), and when the
    leading system messages and the overhead alone reach the limit (long instructions, a small limit): the
    newest unit is kept all the same, since a window without it has nothing to answer. ``token_count()``
    tells the window's size.

    Cost. Each message is counted once, when a window that includes it is first read; a window over ``n``
    messages, appended one at a time with ``get_messages()`` read after each, counts ``n`` messages and
    does O(n) other work besides copying each window out (O(window) per read: the whole history when the
    counts are all 0, which leaves the window unbounded).

    A count must be an ``int`` of at least 0: anything else raises ``TypeError`` or ``ValueError`` naming
    the message's index in the history (for a list counter, also ``token_counter([])``, the overhead), when
    the window first needs that count; the context stays usable.

    Args:
        token_limit: the most tokens the window holds, everything sent counted (at least 1).
        initial_messages: the messages the history starts with, in order (default: none).
        model: a litellm model string whose ``token_counter`` counts (``"gpt-4o-mini"``).
        token_counter: counts the tokens of a list of messages (it must add up per message).
        message_token_counter: counts the tokens of one message.

    Raises:
        TypeError: not exactly one of ``model``, ``token_counter`` and ``message_token_counter`` is given, or
            ``token_limit`` is not an int.
        ValueError: ``token_limit`` is less than 1.
        MessageTypeError: an item of ``initial_messages`` is not a ``Message``.

    Examples:
        ```python
        from messages import AIMessage, ToolCall, ToolMessage, UserMessage
        from messages.context import TokenLimitedContext

        # model="gpt-4o-mini" counts with litellm; here every message counts 10 tokens
        window = TokenLimitedContext(25, message_token_counter=lambda message: 10)
        call = ToolCall(id="call_1", name="weather", arguments={"city": "Paris"})
        window.add_message(UserMessage(content="Weather in Paris?"))
        window.add_message(AIMessage(tool_calls=[call]))
        window.add_message(ToolMessage(tool_call_id="call_1", content="rain"))
        sent = window.get_messages()  # the call and its result fit (20 tokens), whole
        assert sent[0].tool_calls[0].id == "call_1" and window.token_count() == 20
        ```
    """

    def __init__(
        self,
        token_limit: int,
        initial_messages: Iterable[Message] | None = None,
        *,
        model: str | None = None,
        token_counter: TokenCounter | None = None,
        message_token_counter: MessageTokenCounter | None = None,
    ) -> None:
        self._token_limit = positive_int(token_limit, "token_limit")
        counters = {
            "model": model,
            "token_counter": token_counter,
            "message_token_counter": message_token_counter,
        }
        given = [name for name, value in counters.items() if value is not None]
        if len(given) != 1:
            raise TypeError(
                "TokenLimitedContext needs exactly one of model= (a litellm model string, counted with "
                "litellm.token_counter), token_counter= (messages -> int) or message_token_counter= (message "
                f"-> int); got {', '.join(given) if given else 'none'}"
            )
        self._model = model
        self._list_counter = token_counter
        self._message_counter = message_token_counter
        self._counter: MessageTokenCounter | None = None  # made on first use (litellm is imported then)
        self._overhead = 0
        self._tokens = TokenWindow(self._count, self._ensure_overhead)
        super().__init__(initial_messages)

    @property
    def token_limit(self) -> int:
        """The most tokens the window holds (see the class docstring for the one exception)."""
        return self._token_limit

    @property
    def model(self) -> str | None:
        """The litellm model whose ``token_counter`` counts, or ``None`` when a counter was given."""
        return self._model

    @property
    def token_counter(self) -> TokenCounter | None:
        """The list counter given, if any."""
        return self._list_counter

    @property
    def message_token_counter(self) -> MessageTokenCounter | None:
        """The per-message counter given, if any."""
        return self._message_counter

    def _append(self, message: Message) -> None:
        super()._append(message)
        self._tokens.append()

    def _load_part(self, part: Part) -> None:
        super()._load_part(part)
        for index, weight in part.weights.items():
            self._tokens.counts[index] = weight
        if self._units.lead:  # read again each turn: counted once in this process, whatever the counter
            counts, count = (
                self._shared_counts(),
                self._checked_counter("the token count of a stored message"),
            )
            for index in range(self._units.lead):
                self._tokens.counts[index] = _counted(counts, count, self._history[index])
        if part.placed:
            self._tokens.suffix.place(self._units, sum(part.weights.values()))

    def _checked_counter(self, what: str) -> MessageTokenCounter:
        """The window's counter, its counts checked (``checked_count``) and named ``what`` when refused."""
        counter = self._ensure_counter()
        argument = counter_argument(self._list_counter, self._message_counter)

        def count(message: Message) -> int:
            return checked_count(counter(message), what, argument)

        return count

    def _read_plan(self) -> ReadPlan | None:
        if type(self).get_messages is not TokenLimitedContext.get_messages:
            return None  # a subclass that chooses otherwise: it gets the whole thread
        counts = self._shared_counts()
        count = self._checked_counter("the token count of a stored message")

        def tail(lead: Sequence[Message]) -> float:
            return self.token_limit - self._overhead - sum(_counted(counts, count, m) for m in lead)

        # The counts of litellm's counter are saved in the store under its name (a function has none).
        name = f"litellm:{self._model}" if self._model is not None else None
        return ReadPlan(tail=tail, weigh=count, counter=name, counts=counts)

    def _shared_counts(self) -> SharedCounts:
        """This process's counts of the window's counter (``messages._counts``): by the model's name, or by
        the function given."""
        key = self._model or self._list_counter or self._message_counter
        return shared_counts(f"litellm:{key}" if isinstance(key, str) else key)

    def _reset(self) -> None:
        self._tokens.reset(len(self._history))

    def _ensure_counter(self) -> MessageTokenCounter:
        if self._counter is None:
            self._overhead, self._counter = _counter_of(
                self._model, self._list_counter, self._message_counter
            )
        return self._counter

    def _ensure_overhead(self) -> int:
        self._ensure_counter()
        return self._overhead

    def _count(self, index: int) -> int:
        """The token count of the history's message at ``index`` (``TokenWindow`` caches it); litellm's
        counts of a model are shared with every window of that model in this process
        (``messages._counts``), a function's are made by each window."""
        counter = self._ensure_counter()
        what = f"the token count of message {index}"
        if self._list_counter is not None:
            what += f" (token_counter([message {index}]) - token_counter([]): it must add up per message)"
        argument = counter_argument(self._list_counter, self._message_counter)

        def count(message: Message) -> int:
            return checked_count(counter(message), what, argument)

        message = self._history[index]
        if self._model is None:
            return count(message)
        return _counted(self._shared_counts(), count, message)

    def get_messages(self) -> list[Message]:
        """The leading system messages and the newest whole units that fit in what is left of the limit.

        Returns:
            The window, a new list.

        Raises:
            InvalidArgumentError: the token counter returned something that is not an int of at least 0 (a
                ``TypeError`` and a ``ValueError``).
        """
        self._tokens.sync(self._units, self.token_limit)
        return suffix_window(self._history, self._units, self._tokens.suffix.first)

    def token_count(self) -> int:
        """The size of the current window in tokens, counted as the class docstring says (0 when empty).

        Returns:
            The overhead plus the count of each message of ``get_messages()``.

        Raises:
            InvalidArgumentError: the token counter returned something that is not an int of at least 0 (a
                ``TypeError`` and a ``ValueError``).
        """
        return self._tokens.size(self._units, self.token_limit)


def _counted(counts: SharedCounts, count: MessageTokenCounter, message: Message) -> int:
    """``count(message)``, made once in this process: kept in ``counts`` by the message's JSON."""
    text = message.model_dump_json()
    found = counts.get(text)
    if found is None:
        found = count(message)
        counts.put(text, found)
    return found


def _counter_of(
    model: str | None, token_counter: TokenCounter | None, message_token_counter: MessageTokenCounter | None
) -> tuple[int, MessageTokenCounter]:
    """The list's overhead and a per-message count, from one of the three ways a window is given its
    counter (``TokenLimitedContext``'s docstring says how each counts)."""
    if message_token_counter is not None:
        return 0, message_token_counter
    if token_counter is not None:
        counter = token_counter
        overhead = checked_count(counter([]), "token_counter([])")
        return overhead, lambda m: counter([m]) - overhead
    assert model is not None  # one of the three was given (checked by the window)
    return _litellm_counter(model)


@functools.lru_cache(maxsize=64)  # made once per model: a bot makes a window each turn
def _litellm_counter(model: str) -> tuple[int, MessageTokenCounter]:
    """litellm's ``token_counter`` for ``model``: the list overhead, and a per-message count without it.
    Counted with tiktoken directly, without importing litellm, where that gives litellm's count
    (``messages._tokens``); litellm counts the rest, imported on the first message it must count."""
    direct = direct_counter(model)
    if direct is None:
        return _litellm_itself(model)
    made: list[MessageTokenCounter] = []

    def count(message: Message) -> int:
        found = direct(message)
        if found is not None:
            return found
        if not made:
            made.append(_litellm_itself(model)[1])
        return made[0](message)

    return OVERHEAD, count


def _litellm_itself(model: str) -> tuple[int, MessageTokenCounter]:
    """litellm's ``token_counter`` for ``model``, called for each message."""
    import litellm
    from litellm.constants import DEFAULT_IMAGE_TOKEN_COUNT
    from litellm.utils import _return_openai_tokenizer

    # Offline, a llama-3 (or llama-2, command-r) model name makes every count retry a tokenizer download
    # for about 23 s (measured on litellm 1.106.2). The tokenizer is chosen here, as litellm chooses it with
    # `disable_hf_tokenizer_download = True` (tiktoken for every model), and passed to each call, so that
    # litellm never looks for a Hugging Face tokenizer and its process-wide setting is left alone.
    tokenizer = _return_openai_tokenizer(model)
    overhead = int(litellm.token_counter(model=model, custom_tokenizer=tokenizer, messages=[]))
    # litellm raises on input_audio and video_url parts, and before 1.101 on file parts too
    # (messages._litellm.counts_file_parts).
    uncounted: tuple[type, ...] = (AudioPart, VideoPart) + (() if counts_file_parts() else (FilePart,))

    def count(message: Message) -> int:
        audio = 0
        if isinstance(message.content, list):
            # Price each part litellm cannot count like one image, as it prices files it cannot read, and
            # count the rest of the message as usual.
            audio = sum(isinstance(part, uncounted) for part in message.content)
            if audio:
                kept = [p for p in message.content if not isinstance(p, uncounted)]
                message = message.model_copy(update={"content": kept})
        # litellm fetches an image by URL only to size a "high" detail image; never do that here.
        fetches = isinstance(message, UserMessage | ToolMessage) and any(
            isinstance(part, ImagePart) and part.detail == "high" and not part.url.startswith("data:")
            for part in (message.content if isinstance(message.content, list) else ())
        )
        total = litellm.token_counter(
            model=model,
            custom_tokenizer=tokenizer,
            messages=[message.model_dump()],
            use_default_image_token_count=fetches,
        )
        return int(total) - overhead + audio * DEFAULT_IMAGE_TOKEN_COUNT

    return overhead, count
