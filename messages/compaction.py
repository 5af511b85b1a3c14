"""Long conversations compacted into stored summary checkpoints that never lose, split or repeat history.

A thread grows; a window drops what it cannot keep. Compaction stands a summary in for what is dropped, and
keeps it in the store as a *checkpoint* beside the messages: a summary message, the position it covers up
to, the checkpoint it builds on, and how it was made (``messages.stores.Checkpoint``). Writing one changes
no message (``records()`` reads the same before and after); ``store.delete_checkpoint`` undoes it.

```python
from messages import AIMessage, InMemoryThreadStore, LocalThread, UserMessage
from messages.compaction import Compactor, is_summary

store = InMemoryThreadStore()
thread = LocalThread()
store.save_thread(thread)
for _ in range(6):
    thread.append(store, [UserMessage(content="hi"), AIMessage(content="Hello!")])
# A litellm model string summarizes with that model: Compactor("gpt-4o-mini", ...).
compactor = Compactor(lambda request: "The user said hi.", limit=8)
compactor.compact(store, thread)  # writes a checkpoint when one is due; else nothing
request = thread.read(store, compactor.window())  # the summary, then the newest
assert is_summary(request[0]) and len(thread.messages(store)) == 12
```

A bot's turn: read through ``compactor.window()`` (``thread.read(store, window)``), call the model,
append the reply, then ``compactor.compact(store, thread)``; the guide's "Long conversations" page has it
whole.

**The read** (``CompactingContext``, with ``LocalThread.read`` / ``aread``): the leading system messages,
then the newest checkpoint's summary as one marked message, then the messages after its position that fit
in ``limit``. The store is asked for the newest checkpoint (one indexed read) and for the tail from the end,
never below the checkpoint: a turn reads what its window keeps, however long the thread. Between two
checkpoints the tail only grows, so each request begins with the previous one byte for byte and the
provider's prompt cache keeps hitting (``messages.caching.place_cache_breakpoints`` marks the summary, the
end of the previous request and the last message); the window slides only when a compaction that was due
did not run. When it must slide, it starts on a user turn where the units it keeps have one.

**The summary's role.** The summary is a ``SystemMessage`` whose text starts with ``SUMMARY_MARKER``, placed
right after the leading system messages. It is never an assistant turn (a model would read it as its own
words, and Agent Framework's summaries are, MAF #7224). A system message there stays in the leading run
of system messages on every route: litellm hoists that run into Anthropic's and Bedrock's ``system`` and
Gemini's ``system_instruction`` (where a summary of what came before belongs, and where it is cached with
the instructions), the OpenAI-shaped routes send it in place, and the families without a system role
(o1-mini, Gemma) send it as a user turn right before the conversation, as they send the instructions. A
user message would instead merge with the next user turn on Anthropic, Bedrock and Gemini, and need a turn
after it everywhere. ``tests/test_compaction_litellm.py`` sends a compacted read to every provider through
the real litellm.

**When and where to cut** (``Compactor.compact``): compaction is due when the window made of the lead, the
summary and the whole tail since it is over ``trigger``. The cut falls where an exchange starts: never
between a call and its results, never past a unit whose calls are not all answered (a pending call or
approval is never summarized), never past the newest exchange; it keeps the newest exchanges that fit in
``keep``, then moves forward to a user turn where there is one. Messages appended while the summary is
being written come after the cut and are kept.

**What is summarized.** Exactly the base's summary and the messages from its position to the cut. When
that is over the summarizer's input budget (``max_summary_input_tokens``), it is cut at exchange starts
into pieces, each summarized with the summary of the one before, and stored as a chain of checkpoints:
never truncated. A summarizer that raises, times out, returns nothing or returns more tokens than it
replaces writes nothing and raises ``SummarizerError``; the thread reads as before.

**Concurrency.** A checkpoint is stored by compare and set on its base, under the thread's write lock: of
several processes compacting one thread at once, one stores its checkpoint and the others get
``CheckpointConflictError`` from the store, which ``compact`` reports as ``Compaction.conflict``: every
read then uses the winner's.

**Token counts.** With a named counter (``model=``, or ``counter_name=`` beside a counter function), each
message is counted once and the count is saved beside it in the store (``store.token_counts``, by the
thread's next append), so a turn counts only what is new; a counter function without a name is counted
once per process.

**Nothing read when nothing is due.** ``compact`` decides from the last read of the thread by one of the
compactor's windows and what this process appended to it since (the package's stores keep that in memory):
when compaction is not due it makes no call of the store. When that cannot be told (another writer appended
in between, the thread was not read through the compactor's window) or compaction is due, it reads the
thread.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, TypeAlias

from messages._compaction import (
    AddCheckpoint,
    Outcome,
    Settings,
    Summarize,
    SummaryRequest,
    SummaryResult,
    plan_compaction,
)
from messages._counts import SharedCounts, shared_counts
from messages._window import (
    Part,
    ReadPlan,
    Suffix,
    TokenWindow,
    answer_async,
    answer_sync,
    checked_count,
    counter_argument,
)
from messages._window import positive_int as _positive_int
from messages.caching import estimate_tokens
from messages.context import (
    ChatCompletionContext,
    MessageTokenCounter,
    TokenCounter,
    _check_message,
    _counted,
    _counter_of,
)
from messages.errors import (
    CheckpointConflictError,
    ContextStateError,
    InvalidArgumentError,
    MessagesError,
    SummarizerError,
)
from messages.models import AIMessage, Message, SystemMessage, UserMessage
from messages.stores._checkpoints import Checkpoint, Provenance
from messages.stores._codec import check_flag
from messages.threads import _store_method

__all__ = [
    "DEFAULT_INSTRUCTIONS",
    "ESTIMATE_COUNTER",
    "SUMMARY_MARKER",
    "Checkpoint",
    "CompactingContext",
    "Compaction",
    "Compactor",
    "LiteLLMSummarizer",
    "Provenance",
    "Summarizer",
    "SummaryRequest",
    "SummaryResult",
    "is_summary",
    "summary_message",
    "summary_text",
]

_log = logging.getLogger("messages.compaction")

ESTIMATE_COUNTER = "messages.caching.estimate_tokens (4 characters a token)"
"""The counter a window that counts messages uses for the summaries' sizes (and names in provenance)."""

SUMMARY_MARKER = "[Summary of the earlier conversation: it stands in for the messages before this point]"
"""How a summary message's text starts: it tells the model (and ``is_summary``) what the message is."""


def summary_message(text: str) -> SystemMessage:
    """The message a checkpoint stores and a read gives for a summary ``text``: a ``SystemMessage`` that
    starts with ``SUMMARY_MARKER``.

    Args:
        text: the summary's text (surrounding whitespace is dropped).

    Returns:
        The summary message: the marker, a blank line, then ``text``.

    Raises:
        InvalidArgumentError: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(
            f"summary_message(): text is the summary's text, a str, not a {type(text).__name__}",
            argument="text",
        )
    return SystemMessage(content=f"{SUMMARY_MARKER}\n\n{text.strip()}")


def is_summary(message: Message) -> bool:
    """Whether ``message`` is a summary made by ``summary_message``.

    Args:
        message: any message (or any value).

    Returns:
        ``True`` for a system message whose text starts with ``SUMMARY_MARKER``.

    Raises nothing (anything that is not a summary message, a message or not, is ``False``).
    """
    return (
        isinstance(message, SystemMessage)
        and isinstance(message.content, str)
        and message.content.startswith(SUMMARY_MARKER)
    )


def summary_text(message: Message) -> str:
    """A summary message's text without its marker (any other message's text as it is).

    Args:
        message: a summary message, or any other message.

    Returns:
        The text (a message with text parts: the parts' text joined; none: ``""``).

    Raises:
        MessageTypeError: ``message`` is not a ``Message``.
    """
    content = _check_message(message, "summary_text(): the message").content
    text = content if isinstance(content, str) else "".join(getattr(p, "text", "") for p in content or ())
    return text[len(SUMMARY_MARKER) :].strip() if is_summary(message) else text


Summarizer: TypeAlias = Callable[[SummaryRequest], "str | SummaryResult | Awaitable[str | SummaryResult]"]
"""Writes a summary: given a ``SummaryRequest`` (the previous summary's text and the messages after it),
returns the new summary's text, or a ``SummaryResult`` with how it was made; sync or async (a coroutine
function, or an object with an ``asummarize`` method, which ``Compactor.acompact`` awaits)."""

DEFAULT_INSTRUCTIONS = (
    "You compact a long conversation between a user and an AI assistant (with the assistant's tool calls "
    "and their results) into a summary that stands in for it. The assistant will see only your summary and "
    "the messages that come after it, so keep everything it needs to go on: the user's goals, requests and "
    "constraints; facts learned, from tool results too; decisions made and why; what was done; what is "
    "still open or pending. When a previous summary is given, merge it with the new messages into one "
    "summary, keeping what still matters from it. Be concise: short paragraphs or bullet points. Do not "
    "address the user, and add nothing that is not in the conversation."
)
"""The default summarizer's instructions (``LiteLLMSummarizer``)."""

_PREVIOUS = "The summary of the conversation before the messages below (merge it into yours):\n\n"
_FINAL = (
    "Write the summary of the conversation above now, merged with the previous summary if one was given. "
    "Reply with the summary only."
)


class LiteLLMSummarizer:
    """The default summarizer: ``litellm.completion`` (``acompletion`` when awaited) on ``model``, the
    request passed through the provider's profile (``dump_messages(..., model=model)``).

    The request: the instructions and the previous summary as system messages, the span's messages as they
    are (whole exchanges, with their tool calls and results), and a user turn asking for the summary. A
    span of a broken thread is repaired for this request only (``repair_conversation``: a result that
    answers no call would be refused by the provider). ``completion_kwargs`` go to litellm as they are
    (``api_base``, ``api_key``, ``temperature``, ``timeout``...).

    Args:
        model: the litellm model string that writes the summaries (``"gpt-4o-mini"``).
        instructions: what the model is told to do (default: ``DEFAULT_INSTRUCTIONS``).
        max_input_tokens: the most tokens a summary request may take in; a compactor whose own budget
            is not given uses it (``None``: no budget).
        **completion_kwargs: passed to ``litellm.completion`` as they are (``api_base``, ``timeout``...).

    Raises:
        InvalidArgumentError: ``model`` is not a non-empty string, ``instructions`` not a string, or
            ``max_input_tokens`` not an int of at least 1 (or ``None``).
    """

    def __init__(
        self,
        model: str,
        *,
        instructions: str = DEFAULT_INSTRUCTIONS,
        max_input_tokens: int | None = None,
        **completion_kwargs: Any,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise InvalidArgumentError(
                f"LiteLLMSummarizer(): model is a litellm model string, not {model!r:.60}", argument="model"
            )
        if not isinstance(instructions, str):
            raise InvalidArgumentError(
                f"LiteLLMSummarizer(): instructions is a str, not a {type(instructions).__name__}",
                argument="instructions",
            )
        if max_input_tokens is not None:
            max_input_tokens = _positive_int(max_input_tokens, "max_input_tokens")
        self.model = model
        """The litellm model string."""
        self.instructions = instructions
        """What the model is told to do."""
        self.max_input_tokens = max_input_tokens
        """The most tokens a request may take in (``None``: the compactor's budget, if it has one)."""
        self.completion_kwargs = completion_kwargs
        """Passed to ``litellm.completion`` as they are."""

    @property
    def prompt_hash(self) -> str:
        """The SHA-256 of the instructions and the final request: which prompt made a summary."""
        return hashlib.sha256(f"{self.instructions}\n{_FINAL}".encode()).hexdigest()

    def messages(self, request: SummaryRequest) -> list[Message]:
        """The request's messages, before the profile.

        Args:
            request: what to summarize.

        Returns:
            The instructions (and the previous summary) as system messages, the span's messages repaired
            for this request, and the user turn that asks for the summary.

        Raises:
            InvalidArgumentError: ``request`` is not a ``SummaryRequest``.
        """
        from messages.protocol import repair_conversation

        if not isinstance(request, SummaryRequest):
            raise InvalidArgumentError(
                f"LiteLLMSummarizer.messages(): request is a SummaryRequest, not a {type(request).__name__}",
                argument="request",
            )

        lead: list[Message] = [SystemMessage(content=self.instructions)]
        if request.previous:
            lead.append(SystemMessage(content=_PREVIOUS + request.previous))
        span = repair_conversation(request.messages)
        return [*lead, *span, UserMessage(content=_FINAL)]

    def _kwargs(self, request: SummaryRequest) -> dict[str, Any]:
        from messages._io import dump_messages

        return {
            "model": self.model,
            "messages": dump_messages(self.messages(request), model=self.model),
            **self.completion_kwargs,
        }

    def _result(self, response: Any) -> SummaryResult:
        reply = AIMessage.from_litellm(response)
        usage = getattr(response, "usage", None)
        return SummaryResult(
            text=summary_text(reply) if reply.content is not None else "",
            model=self.model,
            prompt_hash=self.prompt_hash,
            input_tokens=getattr(usage, "prompt_tokens", None),
            output_tokens=getattr(usage, "completion_tokens", None),
        )

    def __call__(self, request: SummaryRequest) -> SummaryResult:
        """Summarize with ``litellm.completion``.

        Raises what ``asummarize`` raises (``litellm.completion``'s exceptions for ``acompletion``'s).
        """
        from messages import _litellm

        return self._result(_litellm.completion(**self._kwargs(request)))

    async def asummarize(self, request: SummaryRequest) -> SummaryResult:
        """Summarize with ``litellm.acompletion``.

        Args:
            request: what to summarize.

        Returns:
            The summary's text, with the model, the prompt's hash and the token usage litellm reported.

        Raises:
            InvalidArgumentError: ``request`` is not a ``SummaryRequest``.
            UnfixableError: the request cannot be made valid for the model's provider (``dump_messages``).
            ReplyError: the reply cannot be read as an assistant message (``AIMessage.from_litellm``).

        And what ``litellm.acompletion`` raises (litellm's exceptions: ``APIConnectionError``, ``Timeout``,
        ``RateLimitError``...), which ``Compactor.acompact`` reports as ``SummarizerError`` (``reason``
        ``"raised"``, the exception chained).
        """
        from messages import _litellm

        return self._result(await _litellm.acompletion(**self._kwargs(request)))


@dataclass(frozen=True)
class Compaction:
    """What one ``Compactor.compact`` did."""

    due: bool
    """Whether compaction was due (or forced)."""
    written: tuple[Checkpoint, ...]
    """The checkpoints it stored, oldest first: none when it was not due (or had nothing whole to
    summarize), several when a long span was chained."""
    conflict: Checkpoint | None
    """The checkpoint another compactor stored first on the same base, when one did: it stands, and every
    read uses it; this compaction stored nothing on that base."""


class CompactingContext(ChatCompletionContext):
    """The window of a compacted thread: the leading system messages, the newest checkpoint's summary, and
    the newest whole exchanges after it that fit in ``limit`` (see the module docstring).

    Measured in tokens when given a counter (``model=``, ``token_counter=`` or ``message_token_counter=``,
    as ``messages.context.TokenLimitedContext`` takes them; the limit then counts everything sent, the
    summary and the list's overhead included), else in messages after the leading system messages (the
    summary counts as one). ``trigger`` (default: four fifths of ``limit``) is the window size above which a
    ``Compactor`` with these settings compacts, ``keep`` (default: a quarter of ``limit``) how much of the
    newest exchanges a compaction keeps after its cut. ``counter_name`` names a counter function, so that
    its counts are saved in the store (``model=`` names itself ``"litellm:<model>"``).

    Read it with ``LocalThread.read(store, window)`` (or ``aread``): the store gives it the summary and the
    tail. Messages added afterwards (``add_message``) extend the tail as they would in the store. Without a
    store, it is a token- or message-limited window that starts on a user turn where it can.

    Args:
        limit: the most the window holds, in tokens with a counter, else in messages after the leading
            system messages.
        initial_messages: the messages the history starts with, in order (default: none).
        trigger: the window size above which compaction is due (default: four fifths of ``limit``).
        keep: how much of the newest exchanges a compaction keeps after its cut (default: a quarter of
            ``limit``).
        model: a litellm model string whose ``token_counter`` counts.
        token_counter: counts the tokens of a list of messages (it must add up per message).
        message_token_counter: counts the tokens of one message.
        counter_name: the name under which a counter function's counts are saved in the store (default:
            not saved).

    Raises:
        InvalidArgumentError: ``limit``, ``trigger`` or ``keep`` is not an int of at least 1, or they are
            not ``keep <= trigger <= limit``; more than one counter is given; ``model`` is not a
            non-empty string; ``counter_name`` is not a non-empty string, or is given without a counter
            function.
        MessageTypeError: an item of ``initial_messages`` is not a ``Message``.
    """

    def __init__(
        self,
        limit: int,
        initial_messages: Iterable[Message] | None = None,
        *,
        trigger: int | None = None,
        keep: int | None = None,
        model: str | None = None,
        token_counter: TokenCounter | None = None,
        message_token_counter: MessageTokenCounter | None = None,
        counter_name: str | None = None,
    ) -> None:
        self._limit = _positive_int(limit, "limit")
        default_trigger = min(self._limit, max(2, self._limit * 4 // 5))
        self._trigger = _positive_int(trigger, "trigger") if trigger is not None else default_trigger
        default_keep = max(1, min(self._limit // 4, self._trigger - 1))
        self._keep = _positive_int(keep, "keep") if keep is not None else default_keep
        if not self._keep <= self._trigger <= self._limit:
            raise InvalidArgumentError(
                f"keep <= trigger <= limit, so that a compaction leaves the window near or under its trigger "
                f"and a window reaches its trigger before it must slide; got keep={self._keep}, "
                f"trigger={self._trigger}, limit={self._limit}",
                argument="keep",
            )
        given = [
            n
            for n, v in (
                ("model", model),
                ("token_counter", token_counter),
                ("message_token_counter", message_token_counter),
            )
            if v is not None
        ]
        if len(given) > 1:
            raise InvalidArgumentError(
                f"CompactingContext counts with one counter at most; got {', '.join(given)}",
                argument=given[1],
            )
        if counter_name is not None and not (token_counter or message_token_counter):
            raise InvalidArgumentError(
                "counter_name names a counter function: give token_counter= or message_token_counter=",
                argument="counter_name",
            )
        for name, value in (("model", model), ("counter_name", counter_name)):
            if value is not None and (not isinstance(value, str) or not value):
                raise InvalidArgumentError(
                    f"CompactingContext(): {name} is a non-empty string, not {value!r:.60}", argument=name
                )
        self._model = model
        self._list_counter = token_counter
        self._message_counter = message_token_counter
        self._counter_name = f"litellm:{model}" if model is not None else counter_name
        # The counter and the list's overhead, made on first use, shared by the windows of one compactor.
        self._made: dict[str, Any] = {}
        # The last store read of each thread by a window of these settings: what a compactor needs to tell,
        # without reading again, whether compaction is due (shared by the windows of one compactor).
        self._reads: dict[str, _Read] = {}
        self._tokens = TokenWindow(self._count_at, self._ensure_overhead)
        self._suffix = Suffix()
        self._checkpoint: Checkpoint | None = None
        self._summary_tokens: int | None = None
        super().__init__(initial_messages)

    def __repr__(self) -> str:
        counter = f", counter={self._counter_name!r}" if self._counted else ""
        return (
            f"CompactingContext({self._limit}, trigger={self._trigger}, keep={self._keep}, "
            f"measure={self.measure!r}{counter})"
        )

    # -- settings -----------------------------------------------------------------------------------------

    @property
    def limit(self) -> int:
        """The most the window holds, in tokens or messages (the newest exchange is kept even if larger)."""
        return self._limit

    @property
    def trigger(self) -> int:
        """The window size above which compaction is due."""
        return self._trigger

    @property
    def keep(self) -> int:
        """How much of the newest exchanges a compaction keeps after its cut."""
        return self._keep

    @property
    def measure(self) -> str:
        """``"tokens"`` or ``"messages"``: what ``limit``, ``trigger`` and ``keep`` count."""
        return "tokens" if self._counted else "messages"

    @property
    def counter_name(self) -> str | None:
        """The name counts are saved under in the store (``None``: counted on each read, not saved)."""
        return self._counter_name

    @property
    def checkpoint(self) -> Checkpoint | None:
        """The checkpoint the last store read gave (its summary is in the window), or ``None``."""
        return self._checkpoint

    @property
    def _counted(self) -> bool:
        return self._model is not None or self._list_counter is not None or self._message_counter is not None

    def _same_settings(self) -> CompactingContext:
        """A fresh window with these settings, sharing this one's counter (made once: litellm's takes
        milliseconds to set up) and its record of the last read of each thread."""
        fresh = CompactingContext(
            self._limit,
            trigger=self._trigger,
            keep=self._keep,
            model=self._model,
            token_counter=self._list_counter,
            message_token_counter=self._message_counter,
            counter_name=None if self._model is not None else self._counter_name,
        )
        fresh._made, fresh._reads = self._made, self._reads
        return fresh

    # -- counting -----------------------------------------------------------------------------------------

    def count_tokens(self, message: Message) -> int:
        """A message's tokens by this window's counter (an estimate, 4 characters a token, without one).

        Args:
            message: the message to count.

        Returns:
            Its tokens (the list's overhead not included).

        Raises:
            MessageTypeError: ``message`` is not a ``Message``.
            InvalidArgumentError: the token counter returned something that is not an int of at least 0 (a
                ``TypeError`` and a ``ValueError``).
        """
        _check_message(message, "the message to count")
        if not self._counted:
            return estimate_tokens(message)
        return checked_count(
            self._ensure_counter()(message),
            "the token count of a message",
            counter_argument(self._list_counter, self._message_counter),
        )

    def _count_fixed(self, message: Message) -> int:
        """``count_tokens`` for a message every turn reads again (the lead, a summary): counted once in this
        process (``messages._counts``)."""
        counts = self._shared_counts()
        if counts is None:
            return self.count_tokens(message)  # an estimate: nothing to spare
        return _counted(counts, self.count_tokens, message)

    def _ensure_counter(self) -> MessageTokenCounter:
        made = self._made
        if "counter" not in made:
            made["overhead"], made["counter"] = _counter_of(
                self._model, self._list_counter, self._message_counter
            )
        return made["counter"]  # type: ignore[no-any-return]

    def _ensure_overhead(self) -> int:
        self._ensure_counter()
        return int(self._made["overhead"])

    def _count_at(self, index: int) -> int:
        return checked_count(
            self._ensure_counter()(self._history[index]),
            f"the token count of message {index}",
            counter_argument(self._list_counter, self._message_counter),
        )

    def _summary_weight(self) -> int:
        if self._checkpoint is None:
            return 0
        if not self._counted:
            return 1
        if self._summary_tokens is None:
            self._summary_tokens = self._count_fixed(self._checkpoint.summary)
        return self._summary_tokens

    # -- the window ---------------------------------------------------------------------------------------

    def _append(self, message: Message) -> None:
        super()._append(message)
        self._tokens.append()

    def _reset(self) -> None:
        self._tokens.reset(len(self._history))
        self._suffix.reset()

    def clear(self) -> None:
        """Empty the history and forget the checkpoint.

        Raises nothing.
        """
        super().clear()
        self._checkpoint, self._summary_tokens = None, None

    def _first_unit(self) -> int:
        """The first unit of the window, after the budget and the user-turn start."""
        units = self._units
        if self._counted:
            self._tokens.sync(units, self._limit - self._summary_weight())
            first = self._tokens.suffix.first
        else:
            self._suffix.sync(units, self._limit - self._summary_weight())
            first = self._suffix.first
        if units.starts and first > units.floor():
            # The budget cut the tail: start it on its first user turn, where it has one.
            for unit in range(first, len(units.starts)):
                if isinstance(self._history[units.starts[unit]], UserMessage):
                    return unit
        return first

    def get_messages(self) -> list[Message]:
        """The leading system messages, the summary (when a store read gave one), and the newest whole
        exchanges after it that fit.

        Returns:
            The window, a new list.

        Raises:
            InvalidArgumentError: the token counter returned something that is not an int of at least 0 (a
                ``TypeError`` and a ``ValueError``).
        """
        units = self._units
        lead = self._history[: units.lead]
        summary = [self._checkpoint.summary] if self._checkpoint is not None else []
        if not units.starts:
            return [*lead, *summary]
        return [*lead, *summary, *self._history[units.starts[self._first_unit()] :]]

    def token_count(self) -> int:
        """The window's size: tokens (overhead, lead, summary and tail) or messages after the lead.

        Returns:
            The size, in what ``measure`` says.

        Raises:
            InvalidArgumentError: the token counter returned something that is not an int of at least 0 (a
                ``TypeError`` and a ``ValueError``).
        """
        window = self.get_messages()
        if not self._counted:
            return len(window) - self._units.lead
        return self._ensure_overhead() + sum(self.count_tokens(m) for m in window)

    def compaction_due(self) -> bool:
        """Whether the history this window holds (the lead, the summary, everything after it) is over
        ``trigger``: what ``Compactor.compact`` checks in the store.

        Returns:
            ``True`` when a compactor with these settings would compact the thread.

        Raises:
            InvalidArgumentError: the token counter returned something that is not an int of at least 0 (a
                ``TypeError`` and a ``ValueError``).
        """
        size = self._whole_size()
        return size is None or size > self._trigger

    def _whole_size(self) -> int | None:
        """The size of the lead, the summary and everything after it, as this window holds them; ``None``
        when the store read slid (it left out messages after the checkpoint: over the limit)."""
        units = self._units
        floor = self._checkpoint.upto if self._checkpoint is not None else units.lead
        if units.gap is not None and units.omitted > floor - units.lead:
            return None  # the read slid: the tail since the checkpoint is over the limit
        if not self._counted:
            return len(self._history) - units.lead + (self._checkpoint is not None)
        size = self._ensure_overhead() + sum(self._tokens.count(i) for i in range(len(self._history)))
        return size + self._summary_weight()

    def _shared_counts(self) -> SharedCounts | None:
        """This process's counts of the window's counter (``messages._counts``): by its name, or by the
        function given; ``None`` for a window that counts messages."""
        key = self._counter_name or self._list_counter or self._message_counter
        return shared_counts(key) if key is not None else None

    def _read_plan(self) -> ReadPlan | None:
        if type(self).get_messages is not CompactingContext.get_messages:
            return None
        if not self._counted:

            def messages_budget(lead: Sequence[Message]) -> float:
                return self._limit - (1 if lead and is_summary(lead[-1]) else 0)

            return ReadPlan(tail=messages_budget, checkpoint=True, user_start=True)

        def tokens_budget(lead: Sequence[Message]) -> float:
            return self._limit - self._ensure_overhead() - sum(self._count_fixed(m) for m in lead)

        return ReadPlan(
            tail=tokens_budget,
            weigh=self.count_tokens,
            checkpoint=True,
            counter=self._counter_name,
            user_start=True,
            counts=self._shared_counts(),
        )

    def _load_part(self, part: Part) -> None:
        super()._load_part(part)
        for index, weight in part.weights.items():
            self._tokens.counts[index] = weight
        self._checkpoint, self._summary_tokens = part.checkpoint, None
        if self._counted:
            for index in range(self._units.lead):  # the lead, read again each turn: counted once
                self._tokens.counts[index] = self._count_fixed(self._history[index])
        if part.placed:
            if self._counted:
                self._tokens.suffix.place(self._units, sum(part.weights.values()))
            else:
                self._suffix.place(self._units, len(part.tail))
        if part.source is not None and part.thread_id is not None:
            reads = self._reads
            reads.pop(part.thread_id, None)
            reads[part.thread_id] = _Read(part.source, part.length, self._whole_size())
            while len(reads) > _READS:
                del reads[next(iter(reads))]

    # -- state --------------------------------------------------------------------------------------------

    def save_state(self) -> dict[str, Any]:
        """The history (``ChatCompletionContext.save_state``) and the checkpoint it reads from, under
        ``"checkpoint"`` (``None`` when none).

        Returns:
            A new JSON-able dict that ``load_state`` reads back.

        Raises nothing.
        """
        state = super().save_state()
        checkpoint = self._checkpoint
        state["checkpoint"] = (
            None
            if checkpoint is None
            else {
                "id": checkpoint.id,
                "thread_id": checkpoint.thread_id,
                "upto": checkpoint.upto,
                "base": checkpoint.base,
                "summary": checkpoint.summary.model_dump(),
                "provenance": asdict(checkpoint.provenance),
                "created_at": checkpoint.created_at.isoformat(),
            }
        )
        return state

    def load_state(self, state: Mapping[str, Any]) -> None:
        """Replace the history and the checkpoint with those ``state`` holds (from ``save_state``).

        Args:
            state: what ``save_state`` of a ``CompactingContext`` returned (or its JSON, read back).

        Raises:
            ContextStateError: ``state`` is not a state a ``CompactingContext`` saved (not a mapping, no
                ``"checkpoint"``, a checkpoint or messages that do not read); the context is left as it was.
        """
        if not isinstance(state, Mapping) or "checkpoint" not in state:
            raise ContextStateError(
                "the state has no 'checkpoint': it is not one a CompactingContext's save_state() wrote"
            )
        saved = state["checkpoint"]
        checkpoint = None
        if saved is not None:
            try:
                from messages._io import load_messages

                [summary] = load_messages([saved["summary"]])
                checkpoint = Checkpoint(
                    str(saved["id"]),
                    str(saved["thread_id"]),
                    int(saved["upto"]),
                    saved["base"],
                    summary,
                    Provenance(**saved["provenance"]),
                    datetime.fromisoformat(saved["created_at"]),
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise ContextStateError(f"the state's 'checkpoint' does not read: {exc}") from None
        super().load_state({k: v for k, v in state.items() if k != "checkpoint"})
        self._checkpoint, self._summary_tokens = checkpoint, None


@dataclass(frozen=True)
class _Read:
    """A compacting window's store read of a thread, as a compactor needs it to tell whether compaction is
    due without reading again: the store's memo of what is appended after the read, the thread's length
    then, and the window's whole size (``None``: the read slid, compaction is due)."""

    source: Any
    length: int
    size: int | None


_READS = 1_024
"""How many threads' last reads a compactor keeps."""


class Compactor:
    """Writes summary checkpoints into a thread when its window is over the trigger (see the module
    docstring): ``compact(store, thread)`` with a sync store, ``await acompact(store, thread)`` with an
    async one.

    ``summarizer`` is a litellm model string (``LiteLLMSummarizer(model)``), or any ``Summarizer``: a
    function (sync or async) from a ``SummaryRequest`` to the summary's text or a ``SummaryResult``.
    ``timeout`` bounds each summarizer call (seconds). ``max_summary_input_tokens`` is the summarizer's
    input budget, instructions included (default: the summarizer's ``max_input_tokens``, if it has one;
    else none), counted with the window's counter. The other arguments are ``CompactingContext``'s, whose
    windows read what this compactor writes: ``compactor.window()`` makes one.

    Args:
        summarizer: a litellm model string, or a function (sync or async) from a ``SummaryRequest`` to
            the summary's text or a ``SummaryResult``.
        limit: how much each window of the thread holds: tokens when a counter is given, messages
            otherwise.
        trigger: compact when the window grows past this size (default: about four fifths of the limit).
        keep: the size of the newest part a compaction leaves as it is, not summarized (default: about a
            quarter of the limit).
        model: count with litellm's ``token_counter`` for this model string.
        token_counter: or count with this function of a list of messages.
        message_token_counter: or count with this function of one message.
        counter_name: the name a counter function's counts are saved under in the store (default: not
            saved).
        max_summary_input_tokens: the summarizer's input budget in tokens, instructions included
            (default: the summarizer's ``max_input_tokens``, else none).
        timeout: the most seconds a summarizer call may take (default: no bound).

    Raises:
        InvalidArgumentError: ``summarizer`` is neither a model string nor a summarizer (a callable, or an
            object with ``asummarize``), ``max_summary_input_tokens`` is not an int of at least 1,
            ``timeout`` is not a number above 0; or what ``CompactingContext`` raises for the window's
            settings (and ``LiteLLMSummarizer`` for a model string).

    Examples:
        ```python
        from messages import AIMessage, InMemoryThreadStore, LocalThread, UserMessage
        from messages.compaction import Compactor, is_summary

        store = InMemoryThreadStore()
        thread = LocalThread(id="bot-1")
        store.save_thread(thread)
        # a function stands in for the summarizing model here: Compactor("gpt-4o-mini", ...)
        compactor = Compactor(lambda request: "The user said hi.", limit=6)
        for n in range(5):  # a bot's turns
            thread.append(store, UserMessage(content=f"hi {n}"))
            request = thread.read(store, compactor.window())  # what to send to the model
            thread.append(store, AIMessage(content="Hello!"))  # the model's reply
            compactor.compact(store, thread)  # a summary checkpoint, when one is due
        assert is_summary(request[0]) and len(request) <= 6
        assert len(thread.messages(store)) == 10  # every message is still stored
        ```
    """

    def __init__(
        self,
        summarizer: Summarizer | str,
        *,
        limit: int,
        trigger: int | None = None,
        keep: int | None = None,
        model: str | None = None,
        token_counter: TokenCounter | None = None,
        message_token_counter: MessageTokenCounter | None = None,
        counter_name: str | None = None,
        max_summary_input_tokens: int | None = None,
        timeout: float | None = None,
    ) -> None:
        given: object = summarizer  # typed as a summarizer; checked, as a caller may pass anything
        if not isinstance(given, str) and not (callable(given) or hasattr(given, "asummarize")):
            raise InvalidArgumentError(
                "Compactor(): summarizer is a litellm model string or a function from a SummaryRequest to "
                f"the summary's text, not a {type(given).__name__}",
                argument="summarizer",
            )
        self.summarizer: Summarizer = (
            LiteLLMSummarizer(summarizer) if isinstance(summarizer, str) else summarizer
        )
        """What writes each summary."""
        self._template = CompactingContext(
            limit,
            trigger=trigger,
            keep=keep,
            model=model,
            token_counter=token_counter,
            message_token_counter=message_token_counter,
            counter_name=counter_name,
        )
        budget = max_summary_input_tokens
        if budget is None:
            budget = getattr(self.summarizer, "max_input_tokens", None)
        self.max_summary_input_tokens = (
            None if budget is None else _positive_int(budget, "max_summary_input_tokens")
        )
        """The summarizer's input budget in tokens (``None``: none)."""
        if timeout is not None and (
            not isinstance(timeout, int | float) or isinstance(timeout, bool) or not timeout > 0
        ):
            raise InvalidArgumentError(
                f"timeout is a number of seconds above 0, or None; got {timeout!r}", argument="timeout"
            )
        self.timeout = timeout
        """The most seconds a summarizer call may take (``None``: no bound)."""

    @property
    def limit(self) -> int:
        """The windows' limit (``CompactingContext.limit``)."""
        return self._template.limit

    @property
    def trigger(self) -> int:
        """The window size above which compaction is due."""
        return self._template.trigger

    @property
    def keep(self) -> int:
        """How much of the newest exchanges a compaction keeps after its cut."""
        return self._template.keep

    def window(self) -> CompactingContext:
        """A fresh window with this compactor's settings (and its counter), to read the thread with.

        Returns:
            A new, empty ``CompactingContext``: pass it to ``thread.read(store, window)``.

        Raises nothing.

        Examples:
            ```python
            from messages import AIMessage, InMemoryThreadStore, LocalThread, UserMessage
            from messages.compaction import Compactor, summary_text

            store = InMemoryThreadStore()
            thread = LocalThread(id="chat-1")
            store.save_thread(thread)
            thread.append(store, [UserMessage(content="hi"), AIMessage(content="Hello!")] * 3)
            compactor = Compactor(lambda request: "Greetings.", limit=4)
            compactor.compact(store, thread, force=True)
            window = compactor.window()
            sent = thread.read(store, window)  # the summary, then the newest messages
            assert summary_text(sent[0]) == "Greetings." and window.checkpoint is not None
            ```
        """
        return self._template._same_settings()

    def _settings(self) -> Settings:
        window = self._template
        instructions = getattr(self.summarizer, "instructions", None)
        prompt = window._count_fixed(SystemMessage(content=instructions + _FINAL)) if instructions else 0
        return Settings(
            count=window.count_tokens,
            count_fixed=window._count_fixed,
            counter=window.counter_name,
            counter_label=window.counter_name
            or ("an unnamed counter function" if window.measure == "tokens" else ESTIMATE_COUNTER),
            tokens=window.measure == "tokens",
            overhead=window._ensure_overhead() if window.measure == "tokens" else 0,
            trigger=window.trigger,
            keep=window.keep,
            max_input=self.max_summary_input_tokens,
            prompt_tokens=prompt,
            make_summary=summary_message,
            summary_text=summary_text,
        )

    def compact(self, store: Any, thread: Any, *, force: bool = False) -> Compaction:
        """Compact ``thread`` (a ``LocalThread`` or its id) in the sync ``store`` if it is due (always
        with ``force``, when there is a whole exchange to summarize): what was written.

        Whether it is due is told without a read where it can be: from the last read of the thread by a
        window of this compactor (``window()``) and what this process appended to it since; then, when
        nothing is due, the store is not called at all (see the module docstring).

        A checkpoint another compactor stored first on the same base is no error: ``Compaction.conflict``
        reports it. When the summarizer fails, nothing is written and the thread reads as before.

        Args:
            store: the sync thread store that holds the thread.
            thread: the ``LocalThread``, or its id.
            force: compact even when it is not due.

        Returns:
            What was done: whether it was due, the checkpoints written, a conflict.

        Raises:
            InvalidArgumentError: ``store`` is not a sync thread store (an async one: use ``acompact``), or
                ``force`` is not a bool; nothing is read.
            InvalidThreadIdError: the thread's id is not a usable id.
            ThreadNotFoundError: the store has no such thread.
            ThreadKindError: the thread is a remote one (the service keeps its messages).
            SummarizerError: the summarizer raised (``reason`` ``"raised"``, the exception chained), took
                longer than ``timeout`` (``"timeout"``), returned no text (``"empty"``) or a summary longer
                than what it replaces (``"too_long"``), or returned something that is not a summary.
            SummaryInputTooLargeError: one whole exchange is over ``max_summary_input_tokens``.
            InvalidArgumentError: the token counter returned something that is not an int of at least 0 (a
                ``TypeError`` and a ``ValueError``).

        And what the store's reads and ``add_checkpoint`` raise (``ThreadStore.messages``,
        ``ThreadStore.add_checkpoint``: ``CorruptDataError``, ``StoreClosedError``, ``BackendError``...).

        Examples:
            ```python
            from messages import AIMessage, InMemoryThreadStore, LocalThread, UserMessage
            from messages.compaction import Compactor, summary_text

            store, thread = InMemoryThreadStore(), LocalThread()
            store.save_thread(thread)
            for _ in range(4):
                thread.append(store, [UserMessage(content="hi"), AIMessage(content="Hello!")])
            compactor = Compactor(lambda request: f"{len(request.messages)} greetings.", limit=6)
            result = compactor.compact(store, thread)
            assert result.due and result.conflict is None
            (checkpoint,) = result.written  # it summarizes the messages before checkpoint.upto
            assert summary_text(checkpoint.summary) == f"{checkpoint.upto} greetings."
            assert compactor.compact(store, thread).written == ()  # nothing is due now
            ```
        """
        _store_method(
            store, "add_checkpoint", "compact", awaited=False, owner="Compactor", caller="compactor"
        )
        force = check_flag(force, "force", "Compactor.compact")
        thread_id = getattr(thread, "id", thread)
        if not force and self._not_due(store, thread_id):
            return Compaction(False, (), None)
        self._template._reads.pop(thread_id, None)  # read again below; what it writes changes the window
        steps = plan_compaction(self._settings(), thread_id, force=force)
        answer: Any = None
        try:
            while True:
                request = steps.send(answer)
                if isinstance(request, Summarize):
                    answer = self._summarize(request.request)
                elif isinstance(request, AddCheckpoint):
                    answer = _add_sync(store, thread_id, request)
                else:
                    answer = answer_sync(store, thread_id, request)
        except StopIteration as done:
            return _compaction(done.value)

    async def acompact(self, store: Any, thread: Any, *, force: bool = False) -> Compaction:
        """``compact`` with an async store (``AsyncThreadStore``); the summarizer is awaited (a sync one
        runs in a worker thread).

        Args:
            store: the async thread store that holds the thread.
            thread: as ``compact`` takes it.
            force: as ``compact`` takes it.

        Returns:
            What ``compact`` returns.

        Raises what ``compact`` raises, with an async store (``InvalidArgumentError`` for a sync one: use
        ``compact``), and ``AsyncThreadStore``'s errors for the store's.
        """
        _store_method(
            store, "add_checkpoint", "acompact", awaited=True, owner="Compactor", caller="compactor"
        )
        force = check_flag(force, "force", "Compactor.acompact")
        thread_id = getattr(thread, "id", thread)
        if not force and self._not_due(store, thread_id):
            return Compaction(False, (), None)
        self._template._reads.pop(thread_id, None)  # read again below; what it writes changes the window
        steps = plan_compaction(self._settings(), thread_id, force=force)
        answer: Any = None
        try:
            while True:
                request = steps.send(answer)
                if isinstance(request, Summarize):
                    answer = await self._asummarize(request.request)
                elif isinstance(request, AddCheckpoint):
                    answer = await _add_async(store, thread_id, request)
                else:
                    answer = await answer_async(store, thread_id, request)
        except StopIteration as done:
            return _compaction(done.value)

    def _not_due(self, store: Any, thread_id: object) -> bool:
        """Whether compaction of ``thread_id`` is not due, told without a read: from the last store read of
        the thread by a window of this compactor and what this process appended to it since (the store's
        memo), when both can say; ``False`` (read the thread, and decide there) when they cannot."""
        if not isinstance(thread_id, str):
            return False
        read = self._template._reads.get(thread_id)
        memo = getattr(store, "_memo", None)
        if read is None or memo is None or read.source is not memo or read.size is None:
            return False
        appended = memo.since(thread_id, read.length)
        if appended is None:
            return False
        window = self._template
        size = read.size
        counts = window._shared_counts()
        for message, text in appended:
            if window.measure == "messages":
                size += 1
            elif counts is not None and (found := counts.get(text)) is not None:
                size += found
            else:
                count = window.count_tokens(message)
                if counts is not None:
                    counts.put(text, count)
                size += count
        return size <= window.trigger

    def _summarize(self, request: SummaryRequest) -> SummaryResult:
        """Call the summarizer (in a worker thread when there is a timeout); its failures as
        ``SummarizerError``."""
        try:
            if self.timeout is None:
                result = self.summarizer(request)
                if inspect.isawaitable(result):
                    result = _run_coroutine(result)
            else:
                from concurrent.futures import ThreadPoolExecutor

                pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="messages-summarizer")
                try:
                    future = pool.submit(self._call_sync, request)
                    result = future.result(timeout=self.timeout)
                finally:
                    pool.shutdown(wait=False)
        except TimeoutError:
            raise _timed_out(request, self.timeout) from None
        except MessagesError as exc:
            if isinstance(exc, SummarizerError):
                raise
            raise _raised(request, exc) from exc
        except Exception as exc:
            raise _raised(request, exc) from exc
        return _as_result(request, result)

    def _call_sync(self, request: SummaryRequest) -> Any:
        result = self.summarizer(request)
        return _run_coroutine(result) if inspect.isawaitable(result) else result

    async def _asummarize(self, request: SummaryRequest) -> SummaryResult:
        import asyncio

        summarizer: Any = self.summarizer
        try:
            if hasattr(summarizer, "asummarize"):
                call: Awaitable[Any] = summarizer.asummarize(request)
            elif inspect.iscoroutinefunction(summarizer) or inspect.iscoroutinefunction(
                getattr(summarizer, "__call__", None)  # noqa: B004 - an async __call__
            ):
                call = summarizer(request)
            else:
                call = asyncio.to_thread(self._call_sync, request)
            result = await asyncio.wait_for(call, self.timeout)
            if inspect.isawaitable(result):
                result = await asyncio.wait_for(result, self.timeout)
        except TimeoutError:
            raise _timed_out(request, self.timeout) from None
        except SummarizerError:
            raise
        except Exception as exc:
            raise _raised(request, exc) from exc
        return _as_result(request, result)


def _add_sync(store: Any, thread_id: str, request: AddCheckpoint) -> Checkpoint | CheckpointConflictError:
    """The checkpoint ``request`` asks for, written; a conflict is returned, not raised (the plan reads the
    winner from it)."""
    try:
        return store.add_checkpoint(  # type: ignore[no-any-return]
            thread_id, request.summary, upto=request.upto, base=request.base, provenance=request.provenance
        )
    except CheckpointConflictError as exc:
        return exc


async def _add_async(
    store: Any, thread_id: str, request: AddCheckpoint
) -> Checkpoint | CheckpointConflictError:
    """``_add_sync`` with an async store."""
    try:
        return await store.add_checkpoint(  # type: ignore[no-any-return]
            thread_id, request.summary, upto=request.upto, base=request.base, provenance=request.provenance
        )
    except CheckpointConflictError as exc:
        return exc


def _compaction(outcome: Outcome) -> Compaction:
    """The public result, each checkpoint written logged (``messages.compaction``, INFO) with its
    provenance as the record's ``checkpoint`` and ``provenance`` attributes, for log pipelines."""
    for checkpoint in outcome.written:
        made = checkpoint.provenance
        _log.info(
            "checkpoint %s of thread %s: up to position %d, on %s; summarizer %s, %s tokens in, %s out",
            checkpoint.id,
            checkpoint.thread_id,
            checkpoint.upto,
            checkpoint.base or "nothing",
            made.model or "(a function)",
            made.input_tokens,
            made.output_tokens,
            extra={"checkpoint": checkpoint.id, "provenance": asdict(made)},
        )
    if outcome.conflict is not None:
        _log.info(
            "thread %s: another compactor stored checkpoint %s first",
            outcome.conflict.thread_id,
            outcome.conflict.id,
        )
    return Compaction(outcome.due, outcome.written, outcome.conflict)


def _run_coroutine(awaitable: Any) -> Any:
    """Run an async summarizer's awaitable from sync code: on an event loop of its own, in a worker thread
    when this thread already runs one."""
    import asyncio

    async def wait() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="messages-summarizer") as pool:
        return pool.submit(asyncio.run, wait()).result()


def _as_result(request: SummaryRequest, result: Any) -> SummaryResult:
    if isinstance(result, SummaryResult) and isinstance(result.text, str):
        return result
    if isinstance(result, str):
        return SummaryResult(text=result)
    if result is None:
        return SummaryResult(text="")
    what = type(result).__name__
    if isinstance(result, SummaryResult):
        what = f"SummaryResult whose text is a {type(result.text).__name__}"
    raise SummarizerError(
        f"thread {request.thread_id!r}: the summarizer returned a {what}, not the summary's text (a str) or "
        "a SummaryResult with it; nothing was written",
        thread_id=request.thread_id,
        reason="raised",
    )


def _raised(request: SummaryRequest, exc: BaseException) -> SummarizerError:
    return SummarizerError(
        f"thread {request.thread_id!r}: the summarizer raised {type(exc).__name__} ({exc}) on positions "
        f"{request.start} to {request.upto - 1}; nothing was written (the thread reads as before)",
        thread_id=request.thread_id,
        reason="raised",
    )


def _timed_out(request: SummaryRequest, timeout: float | None) -> SummarizerError:
    limit = f"more than {timeout:g} s" if timeout is not None else "too long (its own timeout)"
    return SummarizerError(
        f"thread {request.thread_id!r}: the summarizer took {limit} on positions "
        f"{request.start} to {request.upto - 1}; nothing was written (the thread reads as before)",
        thread_id=request.thread_id,
        reason="timeout",
    )
