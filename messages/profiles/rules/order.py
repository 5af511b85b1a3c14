"""Rules about the order of messages: alternation, what may follow tool results, the first and last turn."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from messages.profiles._rule import (
    PARTS,
    SYSTEM_ROLES,
    Context,
    Message,
    Note,
    Rule,
    Shape,
    an,
    is_system,
    is_text_part,
    parts_of,
)
from messages.profiles.rules.content import CONTINUE_TEXT

__all__ = [
    "BRIDGE_TEXT",
    "Alternation",
    "BridgeToolResults",
    "FinalThinking",
    "LastMessageOnly",
    "LateSystem",
    "NoPrefill",
    "Prefix",
    "SystemAfterReply",
    "ThinkingOrder",
    "ToolMedia",
    "TurnAfterSystem",
    "UserBeforeReply",
    "UserFirst",
    "merge_consecutive_roles",
    "merge_two",
]

BRIDGE_TEXT = "OK."
"""The assistant turn put between tool results and a following user message where a provider forbids a
user message right after tool results."""

_TURNS = ("user", "assistant")


def _final_text(messages: Sequence[Message], hoisted: bool = False) -> bool:
    """Whether the list ends on an assistant turn that calls no tools (a prefill), as the route sends it
    (``hoisted``: after its trailing system messages go to the system prompt, ``_sent_end``)."""
    end = _sent_end(messages, hoisted)
    return (
        bool(end) and messages[end - 1].get("role") == "assistant" and not messages[end - 1].get("tool_calls")
    )


def _sent_end(messages: Sequence[Message], hoisted: bool) -> int:
    """Where the turns the route sends end: the end of the list, or, where the route sends every system
    message in the system prompt wherever it stands (``hoisted``: litellm's Anthropic and Bedrock routes
    before 1.104, litellm compatibility flag ``MID_SYSTEM_AS_USER``), the end of the list without its trailing
    system messages: a conversation that ends on system messages then ends, as sent, on the turn before
    them."""
    end = len(messages)
    while hoisted and end and is_system(messages[end - 1]):
        end -= 1
    return end


@dataclass(frozen=True, kw_only=True)
class LateSystem(Rule):
    """A system message after the first user or assistant turn is sent as a user message (Perplexity,
    quirk 57: system messages only before the first turn)."""

    id = "late-system"
    stage = 100
    transitions = frozenset(
        (before, after) for before in ("user", "assistant", "tool") for after in SYSTEM_ROLES
    )

    row: int | None = 57

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        found: list[tuple[int | None, Any]] = []
        started = False
        for index, m in enumerate(messages):
            if not is_system(m):
                started = True
            elif started:
                found.append((index, True))
        return found

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        yield Note(f"{cx.provider} takes system messages only before the first user or assistant turn")

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        late = self.detect_list(messages, cx)
        if not late:
            return messages
        out = list(messages)
        for index, _ in late:
            assert index is not None
            out[index] = {**out[index], "role": "user"}
            made.append(out[index])
        return out


@dataclass(frozen=True, kw_only=True)
class SystemAfterReply(Rule):
    """A system message right after an assistant turn or a tool result is sent as a user message (Mistral,
    quirk 80: "Unexpected role 'system' after role 'assistant'"; its validator takes a system message
    first, or after a user or another system message). Its text is kept whole; a system message after a
    user turn keeps its role."""

    id = "system-after-reply"
    stage = 100  # before the bridge after tool results, which then sees a user message there
    transitions = frozenset((before, after) for before in ("assistant", "tool") for after in SYSTEM_ROLES)

    row: int | None = 80

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        return [
            (index, messages[index - 1].get("role"))
            for index in range(1, len(messages))
            if is_system(messages[index]) and messages[index - 1].get("role") in ("assistant", "tool")
        ]

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        yield Note(
            f'a system message right after {an(finding)} message: {cx.provider} answers "Unexpected role '
            f"'system' after role '{finding}'\" (it is sent as a user message)"
        )

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        found = self.detect_list(messages, cx)
        if not found:
            return messages
        out = list(messages)
        for index, _ in found:
            assert index is not None
            out[index] = {**out[index], "role": "user"}
            made.append(out[index])
        return out


# --- media in tool results ---------------------------------------------------------------------------


def _media(content: Any) -> list[Any]:
    return [p for p in parts_of(content) if not is_text_part(p)]


def _count(media: Sequence[Any]) -> str:
    return "1 attachment" if len(media) == 1 else f"{len(media)} attachments"


@dataclass(frozen=True, kw_only=True)
class ToolMedia(Rule):
    """Images, audio and files in tool results are moved to a user message after them (quirk 7).

    Providers that take only text in a tool result reject the rest or drop it silently (litellm's DeepSeek
    route flattens tool content to text; Mistral; Ollama's templates render only a user turn's images).
    Each such result keeps its text plus a note saying where its media went; one user message right after
    the run of results carries every moved part, each group labelled with the call it came from.
    """

    id = "tool-media"
    stage = 101

    row: int | None = 7

    def screens(self, shape: Shape) -> bool:
        return shape.role == "tool" and shape.kind == PARTS

    def detect(self, m: Message, run: Any) -> bool:
        return m.get("role") == "tool" and bool(_media(m.get("content")))

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        yield Note(
            f"{cx.provider} takes only text in a tool result; its images, audio or files are rejected or "
            "ignored there"
        )

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        if not any(m.get("role") == "tool" and _media(m.get("content")) for m in messages):
            return messages
        out: list[Message] = []
        moved: list[Any] = []
        for m in messages:
            if m.get("role") != "tool" and moved:
                out.append({"role": "user", "content": moved})
                made.append(out[-1])
                moved = []
            media = _media(m.get("content")) if m.get("role") == "tool" else []
            if not media:
                out.append(m)
                continue
            texts = [p for p in m["content"] if is_text_part(p)]
            note = {
                "type": "text",
                "text": f"[{_count(media)} of this result moved to the next user message]",
            }
            out.append({**m, "content": [*texts, note]})
            made.append(out[-1])
            moved.append(
                {"type": "text", "text": f"Attachments returned by tool call {m.get('tool_call_id')}:"}
            )
            moved.extend(media)
        if moved:
            out.append({"role": "user", "content": moved})
            made.append(out[-1])
        return out


# --- merging turns -----------------------------------------------------------------------------------


def _as_parts(content: Any) -> list[Any]:
    if isinstance(content, list):
        return list(content)
    if isinstance(content, str) and content:
        return [{"type": "text", "text": content}]
    return []


def _merge_content(first: Any, second: Any) -> Any:
    if first is None or first == "":
        return second
    if second is None or second == "":
        return first
    if isinstance(first, str) and isinstance(second, str):
        return f"{first}\n\n{second}"
    return _as_parts(first) + _as_parts(second)


def merge_two(first: Message, second: Message) -> Message:
    """Two consecutive turns of one role as one: texts joined with a blank line (parts concatenated), tool
    calls in order, reasoning, thinking blocks and refusals of both kept; a ``name`` that differs goes.

    Args:
        first: a dumped turn.
        second: the turn after it, of the same role.

    Returns:
        One turn holding both.

    Raises nothing.
    """
    a, b = first.get("content"), second.get("content")
    if len(first) == 2 and len(second) == 2 and type(a) is str and type(b) is str and a and b:
        return {"role": first["role"], "content": f"{a}\n\n{b}"}  # two plain texts: the common case
    merged = dict(first)
    for key, value in second.items():
        merged.setdefault(key, value)
    if "content" in first or "content" in second:
        merged["content"] = _merge_content(a, b)
    if first.get("tool_calls") or second.get("tool_calls"):
        merged["tool_calls"] = [*(first.get("tool_calls") or []), *(second.get("tool_calls") or [])]
    reasoning = [r for r in (first.get("reasoning_content"), second.get("reasoning_content")) if r]
    if len(reasoning) == 2:
        # A turn made elsewhere carries " " (the reasoning rule): keep the reasoning that says something.
        said = [r for r in reasoning if r.strip()]
        merged["reasoning_content"] = "\n\n".join(said) if said else reasoning[0]
    elif reasoning:
        merged["reasoning_content"] = reasoning[0]  # the one that says something, wherever it was
    blocks = [b for b in (first.get("thinking_blocks"), second.get("thinking_blocks")) if b]
    if len(blocks) == 2 and all(isinstance(b, list) for b in blocks):
        merged["thinking_blocks"] = [*blocks[0], *blocks[1]]  # each turn's signed reasoning, in order
    elif len(blocks) == 1:
        merged["thinking_blocks"] = blocks[0]
    refusals = [r for r in (first.get("refusal"), second.get("refusal")) if r]
    if len(refusals) == 2:
        merged["refusal"] = "\n\n".join(refusals)
    elif refusals:
        merged["refusal"] = refusals[0]
    if first.get("name") != second.get("name"):
        merged.pop("name", None)
    return merged


def _joins(messages: Sequence[Message], at: Sequence[int] | None = None) -> list[int]:
    """The indexes of user and assistant turns that follow a turn of their own role (one that calls no
    tools: a call turn is followed by its results); among ``at`` only, when given."""
    return [
        index
        for index in (range(1, len(messages)) if at is None else at)
        if index
        and messages[index].get("role") in _TURNS
        and messages[index].get("role") == messages[index - 1].get("role")
        and not messages[index - 1].get("tool_calls")
    ]


def merge_consecutive_roles(
    messages: list[Message], made: list[Message] | None = None, at: Sequence[int] | None = None
) -> list[Message]:
    """Runs of user turns, and runs of assistant turns, merged into one turn each (``merge_two``); the
    list itself when there is none. The merged turns are appended to ``made``; ``at`` (indexes in order)
    limits where joins are looked for.

    Args:
        messages: a dumped list; never changed.
        made: where the merged turns are appended (``None``: nowhere).
        at: the indexes where joins are looked for (``None``: everywhere).

    Returns:
        The list with each run of one role merged.

    Raises nothing.
    """
    joins = _joins(messages, at)
    if not joins:
        return messages
    out: list[Message] = []
    merged: dict[int, Message] = {}  # by position in out: the turn a run merged into, as it ends up
    start = 0
    for index in joins:  # copy the stretch up to each join, then merge into the message before it
        out.extend(messages[start:index])
        out[-1] = merged[len(out) - 1] = merge_two(out[-1], messages[index])
        start = index + 1
    out.extend(messages[start:])
    if made is not None:  # a run of three or more makes one turn, not one per step of the merge
        made.extend(merged.values())
    return out


_SAME_TURNS = frozenset({("user", "user"), ("assistant", "assistant")})


@dataclass(frozen=True, kw_only=True)
class Alternation(Rule):
    """User and assistant turns alternate: consecutive ones are merged (quirks 20, 53, 57). Perplexity,
    DeepSeek's reasoner and many chat templates reject two turns of one role in a row."""

    id = "consecutive-roles"
    stage = 110
    transitions = _SAME_TURNS

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        return [(index, messages[index].get("role")) for index in _joins(messages)]

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        yield Note(f"two {finding} turns in a row: {cx.provider} needs user and assistant turns to alternate")

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        return merge_consecutive_roles(messages, made, at)


def _turn_before(messages: Sequence[Message], index: int, hoisted: bool) -> int:
    """The index of the turn the route sends right before ``messages[index]`` (-1: none): the message before
    it, or, where the route sends every system message in the system prompt (``hoisted``), the last one
    before it that is not a system message."""
    before = index - 1
    while hoisted and before >= 0 and is_system(messages[before]):
        before -= 1
    return before


def _merges_into(messages: Sequence[Message], index: int, hoisted: bool) -> int:
    """The index of the assistant turn litellm merges ``messages[index]`` into, when it is an assistant turn
    with thinking blocks sent right after one that calls no tools; -1 when it is not."""
    if not (messages[index].get("role") == "assistant" and messages[index].get("thinking_blocks")):
        return -1
    before = _turn_before(messages, index, hoisted)
    if before < 0 or messages[before].get("role") != "assistant" or messages[before].get("tool_calls"):
        return -1
    return before


def _thinking_joins(
    messages: Sequence[Message], at: Sequence[int] | None = None, hoisted: bool = False
) -> list[int]:
    return [
        index
        for index in (range(1, len(messages)) if at is None else at)
        if index and _merges_into(messages, index, hoisted) >= 0
    ]


@dataclass(frozen=True, kw_only=True)
class ThinkingOrder(Rule):
    """An assistant turn with thinking blocks right after another assistant turn is merged into it, its
    thinking first (quirk 18): litellm's Anthropic converter merges the two with the second turn's thinking
    after the first turn's text, and Anthropic answers "thinking blocks must come before the other
    blocks". Where the route sends every system message in the system prompt (``hoisted``: litellm's
    Anthropic and Bedrock routes before 1.104), two assistant turns with only system messages between them
    are sent side by side too, and are merged here the same way (the system messages kept after them, in
    their order)."""

    id = "thinking-order"
    stage = 111
    # System to assistant too: with ``hoisted``, the turn before a system message is the assistant's
    # neighbour as sent (without it, those pairs find nothing: ``detect_list`` looks at real neighbours).
    transitions = frozenset({("assistant", "assistant"), ("system", "assistant"), ("developer", "assistant")})

    row: int | None = 18
    hoisted: bool = False
    """Whether the route sends every system message in the system prompt. Default: False."""

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        return [(index, True) for index in _thinking_joins(messages, hoisted=self.hoisted)]

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        yield Note(
            "an assistant turn with thinking blocks right after another assistant turn: litellm merges them, "
            f"and {cx.provider} rejects thinking after the first turn's text"
        )

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        if not _thinking_joins(messages, at, self.hoisted):
            return messages
        out: list[Message] = []
        for m in messages:
            out.append(m)
            # A merged turn carries thinking, so the assistant turn before it (if any) is merged too.
            index = len(out) - 1
            while (before := _merges_into(out, index, self.hoisted)) >= 0:
                merged = merge_two(out[before], out[index])
                out[before:] = [merged, *out[before + 1 : index], *out[index + 1 :]]
                made.append(merged)
                index = before
        return out


def _final_run(messages: Sequence[Message], hoisted: bool = False) -> range:
    """The trailing assistant turns that call no tools, which litellm's Anthropic converter sends as one
    final turn (empty when the list does not end on an assistant text), as the route sends the list
    (``hoisted``: ``_sent_end``)."""
    end = start = _sent_end(messages, hoisted)
    while (
        start and messages[start - 1].get("role") == "assistant" and not messages[start - 1].get("tool_calls")
    ):
        start -= 1
    return range(start, end)


@dataclass(frozen=True, kw_only=True)
class FinalThinking(Rule):
    """No thinking blocks on a final assistant text (quirk 18): Anthropic answers "When thinking is
    disabled, an assistant message in the final position cannot contain thinking", and with thinking
    enabled it refuses a prefill altogether. The final turn is every trailing assistant text: litellm merges
    consecutive assistant messages into one turn. The blocks are signed reasoning, not text of the
    conversation; the turns' text (the prefill) is kept."""

    id = "final-thinking"
    stage = 170
    always = True

    row: int | None = 18
    hoisted: bool = False
    """Whether the route sends every system message in the system prompt. Default: False."""

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        run = _final_run(messages, self.hoisted)
        return [(index, True) for index in run if messages[index].get("thinking_blocks")]

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        yield Note(
            f"thinking blocks on the final assistant turn: {cx.provider} rejects them there while thinking "
            "is off, and refuses a prefill while it is on (litellm sends the trailing assistant messages as "
            "one turn)"
        )

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        run = [index for index in _final_run(messages, self.hoisted) if "thinking_blocks" in messages[index]]
        if not run:
            return messages
        out = list(messages)
        for index in run:
            out[index] = {k: v for k, v in messages[index].items() if k != "thinking_blocks"}
            made.append(out[index])
        return out


# --- what follows tool results -----------------------------------------------------------------------

_AFTER_TOOL = frozenset({"user", "system", "developer"})


def _gaps(messages: Sequence[Message], at: Sequence[int] | None = None) -> list[int]:
    """The indexes of user and system messages right after a tool result (among ``at``, when given)."""
    return [
        index
        for index in (range(1, len(messages)) if at is None else at)
        if index and messages[index - 1].get("role") == "tool" and messages[index].get("role") in _AFTER_TOOL
    ]


@dataclass(frozen=True, kw_only=True)
class BridgeToolResults(Rule):
    """An assistant turn saying ``text`` between tool results and a user or system message right after
    them (quirks 31, 44): Mistral answers "Unexpected role 'user' after role 'tool'", Bedrock "Conversation
    blocks and tool result blocks cannot be provided in the same turn"."""

    id = "tool-then-user"
    stage = 120
    transitions = frozenset(("tool", after) for after in _AFTER_TOOL)

    text: str = BRIDGE_TEXT
    """The text of the assistant turn put between the results and the user message."""

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        return [(index, messages[index].get("role")) for index in _gaps(messages)]

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        yield Note(
            f"{an(finding)} message right after tool results: {cx.provider} needs an assistant turn in "
            "between"
        )

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        gaps = _gaps(messages, at)
        if not gaps:
            return messages
        out: list[Message] = []
        start = 0
        for index in gaps:
            out.extend(messages[start:index])
            out.append({"role": "assistant", "content": self.text})
            made.append(out[-1])
            start = index
        out.extend(messages[start:])
        return out


# --- the first and the last turn ---------------------------------------------------------------------


def _first_turn(messages: Sequence[Message]) -> int | None:
    return next((index for index, m in enumerate(messages) if not is_system(m)), None)


@dataclass(frozen=True, kw_only=True)
class LastMessageOnly(Rule):
    """A route that sends the last message only (Cohere's v1 chat through litellm, quirk 87: litellm builds
    ``{"message": <the last text>}`` and leaves out the history, the system preamble and the tool results
    it computed). Every message before the last would be lost: reported, not fixable; the way out is
    another route (for Cohere, the v2 one: the model name without ``v1/``)."""

    id = "history-dropped"
    stage = 5
    always = True
    refuses_list = True

    row: int | None = 87
    way_out: str = "use the v2 route: the model name without v1/ (cohere/command-r-plus)"
    """What to do instead, for the text of the finding."""

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        return [(None, len(messages) - 1)] if len(messages) > 1 else []

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        yield Note(
            f"litellm's route to {cx.provider} sends the last message only: the {finding} before it would be "
            f"lost without a word; {self.way_out}",
            fixable=False,
        )


@dataclass(frozen=True, kw_only=True)
class UserFirst(Rule):
    """The first turn after the system messages is a user turn saying ``text``, added where it is not, and
    where there is no turn at all (quirks 19, 24, 41): Bedrock wants a user message first, Gemini a user
    turn before a function call, Anthropic at least one message besides the system ones."""

    id = "first-turn"
    stage = 140
    always = True

    text: str = CONTINUE_TEXT
    """The text of the user turn put first."""

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        if not messages:
            return []  # the empty-conversation rule says so
        first = _first_turn(messages)
        if first is None:
            return [(None, True)]
        return [] if messages[first].get("role") == "user" else [(first, True)]

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        if _first_turn(messages) is None:
            yield Note(f"no user or assistant turn: {cx.provider} needs a user turn")
        else:
            yield Note(f"the first turn is not a user turn: {cx.provider} needs one first")

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        first = _first_turn(messages)
        if first is not None and messages[first].get("role") == "user":
            return messages
        turn = {"role": "user", "content": self.text}
        made.append(turn)
        if first is None:
            return [*messages, turn]
        return [*messages[:first], turn, *messages[first:]]


@dataclass(frozen=True, kw_only=True)
class UserBeforeReply(Rule):
    """A conversation whose very first message is an assistant turn gets a user turn saying ``text`` before
    it (Mistral, quirk 81). Mistral's validator reads the first message's role only to check that a lone
    message is a user or system one ("Conversation must start with a user message or system message"), and
    never counts its tool calls, so a conversation that opens with a call and its results answers "Not the
    same number of function calls and responses". A system message first is enough: it is left alone."""

    id = "reply-first"
    stage = 140
    always = True

    row: int | None = 81
    text: str = CONTINUE_TEXT
    """The text of the user turn put before the reply."""

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        return [(0, True)] if messages and messages[0].get("role") == "assistant" else []

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        yield Note(
            f"the conversation starts with an assistant turn: {cx.provider} wants a user or system message "
            'first ("Conversation must start with a user message or system message"; its calls are not '
            'counted, "Not the same number of function calls and responses")'
        )

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        if not (messages and messages[0].get("role") == "assistant"):
            return messages
        made.append({"role": "user", "content": self.text})
        return [made[-1], *messages]


@dataclass(frozen=True, kw_only=True)
class TurnAfterSystem(Rule):
    """A user turn saying ``text`` after a system message that ends the conversation (Mistral, quirk 31:
    "Expected last role User or Tool (or Assistant with prefix True)"). The system message keeps its role
    and its place."""

    id = "system-last"
    stage = 150
    always = True

    row: int | None = 31
    text: str = CONTINUE_TEXT
    """The text of the user turn put after the system messages."""

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        return [(len(messages) - 1, True)] if messages and is_system(messages[-1]) else []

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        yield Note(
            f"the conversation ends on a system message: {cx.provider} wants a user or tool message last "
            "(add a user turn)"
        )

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        if messages and is_system(messages[-1]):
            made.append({"role": "user", "content": self.text})
            return [*messages, made[-1]]
        return messages


@dataclass(frozen=True, kw_only=True)
class NoPrefill(Rule):
    """A conversation that ends on an assistant text gets a user turn saying ``text`` (quirks 15, 47, 61):
    Claude 4.6 and later answer "This model does not support assistant message prefill", as do some
    Bedrock models and Perplexity. An assistant turn that calls tools is left to the protocol check."""

    id = "prefill"
    stage = 160
    always = True

    text: str = CONTINUE_TEXT
    """The text of the user turn put after the final assistant turn."""
    hoisted: bool = False
    """Whether the route sends every system message in the system prompt. Default: False."""

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        return [(len(messages) - 1, True)] if _final_text(messages, self.hoisted) else []

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        yield Note(
            "the conversation ends on an assistant text: this model does not support assistant prefill "
            "(add a user turn)"
        )

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        if _final_text(messages, self.hoisted):
            made.append({"role": "user", "content": self.text})
            return [*messages, made[-1]]
        return messages


@dataclass(frozen=True, kw_only=True)
class Prefix(Rule):
    """A final assistant text is marked ``prefix: true``, and no other message (Mistral, quirk 31: the last
    message must be a user or tool message, "or Assistant with prefix True")."""

    id = "prefix"
    stage = 160
    always = True

    row: int | None = 31

    def sends_keys(self, role: str) -> frozenset[str]:
        return frozenset({"prefix"}) if role == "assistant" else frozenset()

    def screens(self, shape: Shape) -> bool:
        return shape.odd

    def detect(self, m: Message, run: Any) -> bool:
        return "prefix" in m  # marks are set afresh on the list: the final one is put back

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        return {k: v for k, v in m.items() if k != "prefix"}

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        last = len(messages) - 1
        found: list[tuple[int | None, Any]] = [
            (index, "stale") for index, m in enumerate(messages) if "prefix" in m and index != last
        ]
        if _final_text(messages) and messages[-1].get("prefix") is not True:
            found.append((last, "missing"))
        return found

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        if finding == "stale":
            yield Note("`prefix` marks a message that is not the last one")
        else:
            yield Note(
                f"the conversation ends on an assistant text: {cx.provider} needs it marked prefix: true "
                "(or a user turn last)"
            )

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        if _final_text(messages) and messages[-1].get("prefix") is not True:
            made.append({**messages[-1], "prefix": True})
            return [*messages[:-1], made[-1]]
        return messages
