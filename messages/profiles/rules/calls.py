"""Rules about tool calls and their results: ids, arguments, repeated calls, providers without tools."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, repeat
from operator import is_not, itemgetter
from typing import Any

from messages.profiles._ids import SIGNATURE_SEPARATOR, IdRule
from messages.profiles._rule import Context, Message, Note, Rule, Shape, blank

__all__ = [
    "EmptyArguments",
    "IdenticalCalls",
    "InvalidArguments",
    "ToolCallIds",
    "ToolNames",
    "ToolsAsText",
    "identical_call_groups",
    "repeats_a_call",
    "split_identical_calls",
]


def _calls(m: Message) -> list[Any]:
    calls = m.get("tool_calls")
    return calls if type(calls) is list else []


def _arguments(call: Any) -> Any:
    function = call.get("function") if isinstance(call, dict) else None
    return function.get("arguments") if isinstance(function, dict) else None


# --- ids ---------------------------------------------------------------------------------------------

_not_none = functools.partial(is_not, None)
_ID = itemgetter("id")


class _IdsRun:
    """The ids one pass has given out so far (``ToolCallIds.start``)."""

    __slots__ = (
        "count",
        "counted",
        "judge",
        "kept",
        "known",
        "latest",
        "log",
        "planned",
        "renamed",
        "rule",
        "unique",
    )

    def __init__(self, rule: IdRule, unique: bool, planned: Mapping[Any, str] | None) -> None:
        self.rule, self.unique, self.planned = rule, unique, planned
        self.counted = unique or planned is not None
        """Whether calls are counted (``ToolCallIds._detect_counted``): ids unique in the request, or
        planned over the whole list."""
        self.known, self.judge = rule.verdicts()
        self.latest: dict[str, str] = {}
        """(With ``unique``) for each id called so far, what its latest call is sent as ("" for as it
        is): what a result with that id answers."""
        self.kept: set[str] = set()
        """Ids sent as they are."""
        self.renamed: dict[Any, str] = {}
        """The new ids given: by id, or (with ``unique``) by the id and how many calls had it before."""
        self.count: dict[str, int] = {}
        """(With ``unique``) how many calls had each id so far."""
        self.log: list[tuple[dict[str, Any], str, Any]] = []
        """The ids set in place (the dict, the key, the id before), to put back if the guess fails."""

    def call_id(self, call_id: str) -> str:
        """What the next call with ``call_id`` is sent as (``""``: as it is)."""
        if self.unique:
            seen = self.count.get(call_id, 0)
            self.count[call_id] = seen + 1
            key: Any = (call_id, seen)
            if self.planned is not None:
                new = self.planned.get(key, "")
            elif seen:  # called before: another id for this turn
                new = self.rule.rewrite(call_id, seen)
            else:
                verdict = self.known.get(call_id)
                new = self.judge(call_id) if verdict is None else verdict
            self.latest[call_id] = new
        else:
            # Ids are scoped to their turn: every call (and result) with one id gets the same verdict.
            key = call_id
            if self.planned is not None:
                new = self.planned.get(call_id, "")
            else:
                verdict = self.known.get(call_id)
                new = self.judge(call_id) if verdict is None else verdict
        if new:
            self.renamed[key] = new
        else:
            self.kept.add(call_id)
        return new

    def result_id(self, call_id: str) -> str:
        """What a result with ``call_id`` is sent as: as the call it answers (the nearest before it with
        that id); a result that answers no call is judged like a call."""
        if self.unique:
            new = self.latest.get(call_id)
            return self.call_id(call_id) if new is None else new
        if self.planned is not None:
            return self.planned.get(call_id, "")
        verdict = self.known.get(call_id)
        return self.judge(call_id) if verdict is None else verdict


@dataclass(frozen=True, kw_only=True)
class ToolCallIds(Rule):
    """Tool-call ids the provider accepts, on the call and its result alike (quirks 3, 17, 25, 30, 45).

    An id the rule rejects gets a new one (deterministic: a readable head and a hash of the old id); with
    ``unique`` (Anthropic and the Claude routes, quirk 17), an id used again in a later turn (Kimi K2's
    ``functions.NAME:0``, a local server's ``call_0``) gets a new one for each later turn. A result answers
    the nearest call before it with its id, and gets what that call got. New ids never collide with each
    other or with an id kept: when a guess made during the pass does, the pass runs again with ids planned
    over the whole list. ``check`` also reports ids that litellm would send as
    one (it cuts Gemini thought signatures off ids for every other provider), and ids used twice in one
    turn (not fixable: ``repair_conversation``).
    """

    id = "tool-call-id"
    reports = ("duplicate-tool-call-id",)
    stage = 90
    keeps_shape = True

    row: int | None = 25
    """Default: quirk 25, for a provider with no id rule of its own (ids carrying litellm's thought
    signatures get new ones, which litellm would otherwise cut into one)."""
    ids: IdRule = field(default_factory=IdRule)
    """The ids the provider accepts."""
    unique: bool = False
    """Whether ids must be unique across the whole request, not only within a turn."""
    duplicate_row: int | None = 17
    """The quirk cited for ids that reach the provider twice."""

    def screens(self, shape: Shape) -> bool:
        if self.ids == _ANY_ID and not self.unique:
            return False
        return shape.role == "tool" or (shape.role == "assistant" and shape.calls)

    def idle(self, messages: Sequence[Message], call_ids: list[str] | None = None) -> bool:
        # Nothing to do when the provider takes every id as written, which one bulk check of all of them
        # says. The ids the protocol check gathered are all there is to check: every result answers one
        # of them, in its own turn, so where they must also be unique in the request (Anthropic's, quirk
        # 17), no id used twice is enough. Else ids scoped to their turn are gathered by C-level loops
        # (map, filter, itemgetter); a tool_call_id or a call that detect would pass over is checked too,
        # and a message or call of another type makes the answer False: both only ever send the list down
        # the message-by-message path. Unique ids are then counted in the pass (a result may answer a
        # call of another turn in a list nobody checked).
        if call_ids is not None:
            once = not self.unique or len(set(call_ids)) == len(call_ids)
            return once and self.ids.accepts_every(call_ids)
        if self.unique:
            return False
        try:
            results = list(filter(_not_none, map(dict.get, messages, repeat("tool_call_id"))))
            if results and not self.ids.accepts_every(results[:1]):
                return False  # where ids get new ones, they mostly all do: no need to gather the rest
            turns = filter(None, map(dict.get, messages, repeat("tool_calls")))
            calls = list(map(_ID, chain.from_iterable(turns)))
        except (TypeError, KeyError):
            return False
        return self.ids.accepts_every(results) and self.ids.accepts_every(calls)

    def start(self, given: Sequence[Message] | None = None) -> _IdsRun:
        planned = None if given is None else plan_ids(given, self.ids, unique=self.unique)
        return _IdsRun(self.ids, self.unique, planned)

    def detect(self, m: Message, run: Any) -> Any:
        if run.counted:
            return self._detect_counted(m, m.get("tool_calls"), run)
        # Ids scoped to their turn, the common case, written for speed: every call and result with one id
        # gets the verdict the rule gives that id (cached across calls), and nothing else is kept track of
        # but the new ids given and the ids kept (for the collision check of ``finish``).
        calls = m.get("tool_calls")
        if not calls:  # a result
            call_id = m.get("tool_call_id")
            if type(call_id) is not str:
                return None
            new = run.known.get(call_id)
            if new is None:
                new = run.judge(call_id)
            if new:
                run.renamed[call_id] = new
                return new
            run.kept.add(call_id)
            return None
        if type(calls) is not list:
            return None
        known, judge = run.known, run.judge
        found = None
        for n, c in enumerate(calls):
            call_id = c.get("id") if type(c) is dict else None
            if type(call_id) is not str:
                continue
            new = known.get(call_id)
            if new is None:
                new = judge(call_id)
            if new:
                run.renamed[call_id] = new
                found = [(n, new)] if found is None else [*found, (n, new)]
            else:
                run.kept.add(call_id)
        return found

    def _detect_counted(self, m: Message, calls: Any, run: Any) -> Any:
        """``detect`` where calls are counted: ids unique in the request, or planned over the list."""
        if calls:
            found = None
            if type(calls) is list:
                for n, c in enumerate(calls):
                    call_id = c.get("id") if type(c) is dict else None
                    if type(call_id) is str:
                        new = run.call_id(call_id)
                        if new:
                            found = [(n, new)] if found is None else [*found, (n, new)]
            return found
        call_id = m.get("tool_call_id")
        if type(call_id) is str and m.get("role") == "tool":
            return run.result_id(call_id) or None
        return None

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        if isinstance(finding, str):
            return {**m, "tool_call_id": finding}
        calls = list(m["tool_calls"])
        for n, new in finding:
            calls[n] = {**calls[n], "id": new}
        return {**m, "tool_calls": calls}

    def fix_in_place(self, m: Message, finding: Any, run: Any) -> Message:
        log = run.log
        if isinstance(finding, str):
            log.append((m, "tool_call_id", m["tool_call_id"]))
            m["tool_call_id"] = finding
            return m
        calls = m["tool_calls"]
        for n, new in finding:
            call = calls[n]
            log.append((call, "id", call["id"]))
            call["id"] = new
        return m

    def finish(self, run: Any, messages: list[Message], cx: Context) -> list[Message] | None:
        new_ids = run.renamed.values()
        if not new_ids or (len(set(new_ids)) == len(new_ids) and run.kept.isdisjoint(new_ids)):
            return messages
        for container, key, old in reversed(run.log):  # a guess collided: put back the ids set in place,
            container[key] = old
        return None  # and plan every id over the whole list

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        ids = [c.get("id") for c in _calls(m) if isinstance(c, dict)]
        if m.get("role") == "tool" and not m.get("tool_calls"):
            ids = [m.get("tool_call_id")]
        for call_id in ids:
            if not isinstance(call_id, str):
                continue
            sent = self.ids.sent_as(call_id)
            if not self.ids.fits(sent):
                how = f" (litellm sends it as {sent!r})" if sent != call_id else ""
                yield Note(
                    f"tool-call id {call_id!r}{how} breaks {cx.provider}'s id rule ({self.ids.describe()})"
                )

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        found: list[tuple[int | None, Any]] = []
        last: dict[str, tuple[str, int]] = {}  # an id as sent -> the id as written, and its latest message
        for index, m in enumerate(messages):
            for c in _calls(m):
                own = c.get("id") if isinstance(c, dict) else None
                if not isinstance(own, str):
                    continue
                sent = self.ids.sent_as(own)
                if sent in last:
                    original, where = last[sent]
                    # Ids are scoped to their turn: a later turn may use an id again, unless the provider
                    # wants every id once in a request.
                    if where == index or self.unique:
                        found.append((index, (own, original, where, where == index)))
                last[sent] = (own, index)
        return found

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        own, original, where, same_turn = finding
        duplicate = "duplicate-tool-call-id"
        if original != own:
            yield Note(
                f"tool-call ids {original!r} (message {where}) and {own!r} both reach {cx.provider} as "
                f"{self.ids.sent_as(own)!r}: litellm cuts the Gemini thought signature "
                f"({SIGNATURE_SEPARATOR}...) off ids for every model but Gemini",
                rule=duplicate,
                row=self.duplicate_row,
            )
        elif same_turn:
            yield Note(
                f"tool-call id {own!r} is used twice in this turn; ids must be unique within a turn (use "
                "repair_conversation())",
                fixable=False,
                rule=duplicate,
                row=self.duplicate_row,
            )
        else:
            yield Note(
                f"tool-call id {own!r} was already used by a call in message {where}: {cx.provider} needs "
                "every id once in a request (another id is sent for each later turn)",
                rule=duplicate,
                row=self.duplicate_row,
            )


_ANY_ID = IdRule(keeps_signatures=True)


def plan_ids(messages: Sequence[Message], rule: IdRule, *, unique: bool) -> dict[Any, str]:
    """New ids for every call (and orphan result) of ``messages`` that needs one: collision-free,
    deterministic, and accepted by ``rule``. Without ``unique`` an id keeps its verdict in every turn
    (keys: the ids); with it, each later call of an id gets an id of its own (keys: the id and how many
    calls had it before). An id the rule accepts is kept (at its first call, with ``unique``)."""
    occurrences: list[tuple[str, int]] = []
    count: dict[str, int] = {}
    for m in messages:
        calls = _calls(m)
        if calls:
            ids = [c.get("id") for c in calls if isinstance(c, dict)]
        elif m.get("role") == "tool" and m.get("tool_call_id") not in count:
            ids = [m.get("tool_call_id")]  # a result that answers no call before it
        else:
            continue
        for call_id in ids:
            if isinstance(call_id, str):
                seen = count.get(call_id, 0)
                count[call_id] = seen + 1
                occurrences.append((call_id, seen if unique else 0))
    accepts = rule.acceptor
    kept = {call_id for call_id, seen in occurrences if seen == 0 and accepts(call_id)}
    taken = set(kept)
    planned: dict[Any, str] = {}
    for call_id, seen in dict.fromkeys(occurrences):
        if seen == 0 and call_id in kept:
            continue
        attempt = seen
        candidate = rule.rewrite(call_id, attempt)
        while candidate in taken or not accepts(candidate):
            attempt += 1
            candidate = rule.rewrite(call_id, attempt)
        taken.add(candidate)
        planned[(call_id, seen) if unique else call_id] = candidate
    return planned


# --- arguments ---------------------------------------------------------------------------------------


def _blank_arguments(call: Any) -> bool:
    arguments = _arguments(call)
    return isinstance(arguments, str) and not arguments.strip()


@dataclass(frozen=True, kw_only=True)
class EmptyArguments(Rule):
    """A call made without arguments (``""``, as streamed no-argument calls come) is sent as ``"{}"``
    (quirks 49, 53, 58): litellm's Anthropic, Bedrock, Gemini and Ollama converters and vLLM ``json.loads``
    the arguments. OpenAI keeps the model's exact bytes, so its profile leaves this rule out."""

    id = "empty-arguments"
    stage = 40

    row: int | None = 58

    def screens(self, shape: Shape) -> bool:
        return shape.role == "assistant" and shape.blank_arguments

    def reshape(self, shape: Shape) -> Shape | None:
        # Plain calls all get "{}"; calls of another structure decide for themselves.
        return None if shape.odd_calls else replace(shape, blank_arguments=False)

    def detect(self, m: Message, run: Any) -> bool:
        return any(_blank_arguments(c) for c in _calls(m))

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        return {
            **m,
            "tool_calls": [
                {**c, "function": {**c["function"], "arguments": "{}"}} if _blank_arguments(c) else c
                for c in _calls(m)
            ],
        }

    def fix_in_place(self, m: Message, finding: Any, run: Any) -> Message:
        for c in _calls(m):
            if _blank_arguments(c):
                c["function"]["arguments"] = "{}"
        return m

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        for c in _calls(m):
            if _blank_arguments(c):
                yield Note(
                    f"tool call {c.get('id')!r} has arguments {_arguments(c)!r}; converters that json.loads "
                    "them fail on it (send '{}')"
                )


_DECODED: dict[str, Any] = {}
_DECODED_LIMIT = 1 << 16
_UNDECODABLE = object()


def _decoded(arguments: str) -> Any:
    """``json.loads(arguments)`` (``_UNDECODABLE`` when it is not JSON; ``""`` as the ``"{}"`` it is sent
    as), cached: a conversation dumped again each turn decodes each call's arguments once. The values are
    only compared, never handed out."""
    found = _DECODED.get(arguments, _DECODED)
    if found is _DECODED:
        if len(_DECODED) >= _DECODED_LIMIT:
            _DECODED.clear()
        try:
            found = json.loads(arguments if arguments.strip() else "{}")
        except (ValueError, RecursionError):
            found = _UNDECODABLE
        _DECODED[arguments] = found
    return found


@dataclass(frozen=True, kw_only=True)
class InvalidArguments(Rule):
    """Arguments that are not a JSON object, on a route whose converter decodes them (Anthropic, Bedrock,
    Gemini, Ollama: quirks 49, 58): litellm fails or sends ``{}``. Not fixable: only the model's own
    arguments can say what it meant."""

    id = "invalid-arguments"
    stage = 41

    row: int | None = 58

    def screens(self, shape: Shape) -> bool:
        return shape.role == "assistant" and shape.calls

    def detect(self, m: Message, run: Any) -> list[tuple[Any, str]] | None:
        bad = None
        known = _DECODED
        for c in _calls(m):
            f = c.get("function") if type(c) is dict else None
            arguments = f.get("arguments") if type(f) is dict else None
            if type(arguments) is not str:
                continue
            decoded = known.get(arguments, known)
            if decoded is known:
                decoded = _decoded(arguments)
            if type(decoded) is not dict and arguments and not arguments.isspace():
                bad = [(c.get("id"), arguments)] if bad is None else [*bad, (c.get("id"), arguments)]
        return bad

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        for call_id, arguments in finding:
            yield Note(
                f"tool call {call_id!r} has arguments that are not a JSON object ({arguments[:40]!r}); "
                f"litellm's route to {cx.provider} decodes them, and fails or sends {{}}",
                fixable=False,
            )


@dataclass(frozen=True, kw_only=True)
class ToolNames(Rule):
    """A tool call whose tool name breaks the provider's pattern is reported (Mistral, quirk 82: "Function
    name was get weather! but must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum
    length of 64"). Not fixable: the name is the link to the tool's definition in ``tools=``, which the
    caller passes and this package never sees; rename the tool there and in the history."""

    id = "tool-name"
    stage = 42

    row: int | None = 82
    pattern: str = "[a-zA-Z0-9_-]{1,64}"
    """The names accepted, as a regular expression the whole name must match."""

    def screens(self, shape: Shape) -> bool:
        return shape.role == "assistant" and shape.calls

    def detect(self, m: Message, run: Any) -> list[tuple[Any, Any]] | None:
        bad = None
        fullmatch = _name_pattern(self.pattern).fullmatch
        for c in _calls(m):
            f = c.get("function") if type(c) is dict else None
            name = f.get("name") if type(f) is dict else None
            if type(name) is not str or fullmatch(name) is None:
                bad = bad or []
                bad.append((c.get("id") if type(c) is dict else None, name))
        return bad

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        for call_id, name in finding:
            yield Note(
                f"tool call {call_id!r} calls {name!r}, a name {cx.provider} rejects (it takes only "
                f"{self.pattern}): rename the tool, in tools= and in the history",
                fixable=False,
            )


@functools.cache
def _name_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# --- repeated calls ----------------------------------------------------------------------------------


def _call_as_sent(call: Any) -> tuple[Any, Any]:
    """A call as litellm's Gemini converter compares it: its name and its decoded arguments."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        return None, call
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        decoded = _decoded(arguments)
        return function.get("name"), arguments if decoded is _UNDECODABLE else decoded
    return function.get("name"), arguments


def repeats_a_call(calls: Sequence[Any]) -> bool:
    """Whether a call of ``calls`` is identical to an earlier one (same tool, equal decoded arguments).

    Args:
        calls: the tool calls of one assistant turn, as dumped.

    Returns:
        ``True`` when two calls are identical.

    Raises nothing.
    """
    if len(calls) == 2:  # the commonest case with something to compare
        return _call_as_sent(calls[0]) == _call_as_sent(calls[1])
    seen: list[tuple[Any, Any]] = []
    for call in calls:
        sent = _call_as_sent(call)
        if sent in seen:
            return True
        seen.append(sent)
    return False


def identical_call_groups(calls: Sequence[Any]) -> list[list[int]]:
    """The calls of one turn (by index) in groups with no two identical calls: each call goes to the first
    group without one like it, so the first group holds every first occurrence. One group when no call
    repeats another.

    Args:
        calls: the tool calls of one assistant turn, as dumped.

    Returns:
        Groups of indexes into ``calls``, the first group holding every first occurrence.

    Raises nothing.
    """
    sent = [_call_as_sent(c) for c in calls]
    groups: list[list[int]] = []
    for index, call in enumerate(sent):
        for group in groups:
            if all(sent[other] != call for other in group):
                group.append(index)
                break
        else:
            groups.append([index])
    return groups


@dataclass(frozen=True, kw_only=True)
class IdenticalCalls(Rule):
    """A turn that calls one tool twice with equal arguments is split into turns that call it once each,
    each followed by its own results (quirk 24): litellm's Gemini route sends such calls as one
    ``functionCall`` part but sends every ``functionResponse``, and Gemini rejects a response turn whose
    parts do not match the call turn's."""

    id = "identical-calls"
    stage = 130

    row: int | None = 24

    def screens(self, shape: Shape) -> bool:
        return shape.role == "assistant" and shape.calls

    def detect(self, m: Message, run: Any) -> bool:
        calls = _calls(m)
        return len(calls) > 1 and repeats_a_call(calls)

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        calls = _calls(m)
        groups = identical_call_groups(calls)
        repeated = [calls[i].get("id") for group in groups[1:] for i in group if isinstance(calls[i], dict)]
        yield Note(
            f"tool calls {repeated!r} repeat an earlier call of this turn (same tool, equal arguments): "
            f"litellm's {cx.provider} route sends them as one call but sends every result, and the provider "
            "rejects more results than calls"
        )

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        return split_identical_calls(messages, made)


def split_identical_calls(messages: list[Message], made: list[Message] | None = None) -> list[Message]:
    """``[assistant(c1, c2)] [tool r1] [tool r2]`` with c1 and c2 identical becomes ``[assistant(c1)]
    [tool r1] [assistant(c2)] [tool r2]`` (``IdenticalCalls``); the list itself when no turn repeats a call.
    The turns it makes are appended to ``made``.

    The results keep their order: a new turn starts at the first result whose call repeats one of the
    current turn; each turn holds the calls its results answer, in their order in the original turn. Ids,
    arguments and results are kept. The first turn keeps the text and every other key; the turns added
    carry only their calls. A call no result answers joins the first turn that has no call like it.

    Args:
        messages: a dumped list; never changed.
        made: where the turns made are appended (``None``: nowhere).

    Returns:
        The list with each repeated call in a turn of its own.

    Raises nothing.
    """
    if not any(
        m.get("role") == "assistant" and len(_calls(m)) > 1 and repeats_a_call(_calls(m)) for m in messages
    ):
        return messages
    out: list[Message] = []
    index, count = 0, len(messages)
    while index < count:
        m = messages[index]
        index += 1
        calls = _calls(m)
        if m.get("role") != "assistant" or len(calls) < 2 or not repeats_a_call(calls):
            out.append(m)
            continue
        results = []
        while index < count and messages[index].get("role") == "tool":
            results.append(messages[index])
            index += 1
        sent = [_call_as_sent(c) for c in calls]
        position: dict[str, int] = {}
        for number, c in enumerate(calls):
            if isinstance(c, dict) and isinstance(c.get("id"), str):
                position.setdefault(c["id"], number)
        groups: list[tuple[list[int], list[Message]]] = [([], [])]
        for result in results:
            call_id = result.get("tool_call_id")
            answering = position.get(call_id) if isinstance(call_id, str) else None
            own, answers = groups[-1]
            if answering is not None and (answering in own or any(sent[o] == sent[answering] for o in own)):
                groups.append(([], []))
                own, answers = groups[-1]
            if answering is not None and answering not in own:
                own.append(answering)
            answers.append(result)
        answered = {n for own, _ in groups for n in own}
        for number in range(len(calls)):
            if number in answered:
                continue
            for own, _ in groups:
                if all(sent[o] != sent[number] for o in own):
                    own.append(number)
                    break
            else:
                groups.append(([number], []))
        kept: list[tuple[list[int], list[Message]]] = []
        orphans: list[Message] = []  # results that answer no call of the turn go with the next turn
        for own, answers in groups:
            if own:
                kept.append((own, [*orphans, *answers]))
                orphans = []
            else:
                orphans.extend(answers)
        kept[-1][1].extend(orphans)
        for turn, (own, answers) in enumerate(kept):
            own_calls = [calls[n] for n in sorted(own)]
            split = (
                {**m, "tool_calls": own_calls}
                if turn == 0
                else {"role": "assistant", "content": None, "tool_calls": own_calls}
            )
            out.append(split)
            if made is not None:
                made.append(split)
            out.extend(answers)
    return out


# --- providers without tools -------------------------------------------------------------------------


def _plain_id(call_id: Any) -> str:
    """An id as a reader sees it: without litellm's Gemini signature, a payload for Gemini only."""
    text = call_id if type(call_id) is str else str(call_id)
    return text.partition(SIGNATURE_SEPARATOR)[0]


class _Renderer:
    """Tool exchanges as text, one message at a time (``ToolsAsText.start``): it remembers which tool each
    call called, to name it in the result."""

    __slots__ = ("names",)

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def render(self, m: Message) -> Message:
        if m.get("role") == "tool":
            call_id = m.get("tool_call_id")
            name = self.names.get(call_id) if type(call_id) is str else None
            # A result flagged as failed says so in the text it becomes: the flag itself has no place.
            what = "Error from" if m.get("is_error") is True else "Result of"
            header = f"{what} tool call {_plain_id(call_id)}" + (f" ({name}):" if name else ":")
            content = m.get("content")
            if isinstance(content, list):
                return {"role": "user", "content": [{"type": "text", "text": header}, *content]}
            return {"role": "user", "content": f"{header}\n{content if isinstance(content, str) else ''}"}
        lines = []
        for c in _calls(m):
            function = c.get("function") if isinstance(c, dict) else None
            function = function if isinstance(function, dict) else {}
            call_id = c.get("id") if isinstance(c, dict) else None
            name = function.get("name")
            if type(call_id) is str:
                self.names[call_id] = name if type(name) is str else str(name)
            arguments = function.get("arguments") or "{}"
            lines.append(f"Called tool {name} with {arguments} (call {_plain_id(call_id)}).")
        said = "\n".join(lines)
        content = m.get("content")
        new = {k: v for k, v in m.items() if k != "tool_calls"}
        new["content"] = said if blank(content, whitespace=False) else _append(content, said)
        return new


def _append(content: Any, text: str) -> Any:
    if isinstance(content, list):
        return [*content, {"type": "text", "text": text}]
    return f"{content}\n\n{text}"


@dataclass(frozen=True, kw_only=True)
class ToolsAsText(Rule):
    """Tool calls and results as plain turns, for a provider without tools (quirk 61, Perplexity).

    An assistant turn's calls become lines of its text (``Called tool get_weather with {...} (call
    call_1).``) and each result becomes a user turn that says which call it answers (``Result of tool
    call call_1 (get_weather):``, or ``Error from ...`` for a result flagged ``is_error``) and carries the
    result unchanged (text, or its parts). Nothing is dropped; the alternation rule then merges the turns.
    """

    id = "tools-unsupported"
    stage = 10

    row: int | None = 61

    def screens(self, shape: Shape) -> bool:
        return shape.role == "tool" or (shape.role == "assistant" and shape.calls)

    def start(self, given: Sequence[Message] | None = None) -> _Renderer:
        return _Renderer()

    def detect(self, m: Message, run: Any) -> bool:
        return m.get("role") == "tool" or bool(m.get("tool_calls"))

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        return run.render(m)  # type: ignore[no-any-return]

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        what = "a tool result" if m.get("role") == "tool" else "tool calls"
        yield Note(f"{cx.provider} has no tool calls, and rejects {what} in the history")
