"""A profile's rules compiled once into the tables one pass over a message list reads.

``Plan.of(provider, rules)`` binds each rule to the profile (``Rule.bind``), sorts them by stage, and
builds, for each message shape (``_rule.SHAPES``), the rules that screen it. ``apply`` and ``check`` then
make one pass over the messages: a message's shape is computed (``code_of``), the rules of that shape are
asked (``detect``), and ``apply`` fixes what they find (``fix``) while ``check`` describes it. The list
rules run after the pass, where something triggered them. Both modes read the same tables and the same
detection code: that is the fast path, and there is no other.

A finding the pass leaves as it is (a rule without a fix, or a fix that declined) is kept aside; when the
caller asks (``apply(..., unfixable=[...])``), the rule describes it afterwards, and what it calls not
fixable is handed back, at the index of the message in the list given: the profile refuses to send it.
Nothing of this runs on a message no rule finds anything in.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import repeat
from typing import Any

from messages.profiles._parts import ANY_PARTS, PartTable
from messages.profiles._rule import (
    DROP,
    LONG_STEP,
    LONG_TEXT,
    ROLES,
    SHAPE_CODES,
    SHAPES,
    Context,
    Message,
    Note,
    Rule,
    Violation,
    code_of,
    code_of_dumped,
)

__all__ = ["Plan"]

_OTHER = len(ROLES)
_ROLE_CHARS: dict[Any, str] = {role: str(code) for code, role in enumerate(ROLES)}
_OTHER_CHAR = str(_OTHER)
_ROLE_COUNT = len(ROLES) + 1
_MAX_ROUNDS = 4  # list steps and the message rules on what they made, until a round changes nothing
_UNASKED, _UNKNOWN = -2, -1  # in Plan.reshapes: Rule.reshape not asked yet; the shape does not say

Triggers = Mapping[int, Sequence[int] | None]
"""The list rules to run, by position: the indexes of the messages that triggered each one (a watched
pair of neighbours, or a message-level detection), or ``None`` for anywhere in the list."""


def _violation(index: int | None, rule: Rule, note: Note) -> Violation:
    row = rule.row if note.row is None else note.row
    return Violation(index, note.rule or rule.id, row, note.text, note.fixable)


def _overrides(rule: Rule, name: str) -> bool:
    return getattr(type(rule), name) is not getattr(Rule, name)


@dataclass(frozen=True, eq=False)
class Plan:
    """The compiled form of a profile's rules (see the module docstring)."""

    cx: Context
    rules: tuple[Rule, ...]
    """The profile's rules, bound and sorted by stage: positions index everything below."""
    table: tuple[tuple[int, ...], ...]
    """By shape code: the positions of the rules that screen that shape, in stage order."""
    detects: tuple[Callable[[Message, Any], Any], ...]
    fixes: tuple[Callable[[Message, Any, Any], Any] | None, ...]
    """By position: the rule's message-level ``fix``, or ``None`` when its findings are fixed by its list
    step (or not at all)."""
    owned_fixes: tuple[Callable[[Message, Any, Any], Any] | None, ...]
    """``fixes``, with ``fix_in_place`` where a rule has one: for a list nobody else holds."""
    reshapes: tuple[list[int], ...]
    """By position, by shape code: the code of a message of that shape after the rule's fix, where the
    shape alone decides it (``Rule.reshape``); ``-1`` where the pass computes it; ``-2`` until first
    needed (filled in by ``_code_after``)."""
    listed: tuple[int, ...]
    """The positions of the rules with list-level hooks, in stage order."""
    transitions: tuple[tuple[int, ...], ...] | None
    """By ``previous role code * 6 + role code``: the list rules that pair of neighbours triggers;
    ``None`` when no rule of the profile watches neighbours."""
    pairs: tuple[tuple[re.Pattern[str], tuple[int, ...]], ...]
    """``transitions`` as patterns: each watched pair of neighbours, as a lookahead over the roles of a
    list written one character each (``_triggers``), with the list rules it triggers."""
    stateful: tuple[int, ...]
    """The positions of rules whose ``start`` gives a state of its own."""
    retriggers: tuple[bool, ...]
    """By position: whether a list rule after this one watches neighbours (so that a change this rule
    makes to the list is looked at again)."""
    watching: frozenset[int]
    """The positions of the list rules that watch neighbours (``Rule.transitions``)."""
    rerun: tuple[tuple[int, ...], ...]
    """``table`` without the stateful rules and the rules with list-level hooks (whose message-level part
    prepares their list step, which has run): for the messages that list steps made."""
    plain_strings: frozenset[str]
    """The roles whose plain messages (``{"role", "content": <a string>}``) no rule screens, whatever the
    string: the pass hands them on without computing their shape."""
    plain_texts: frozenset[str]
    """The same for plain messages whose string says something (not empty, not only whitespace)."""
    tool_text: int
    """The shape code of a plain tool result whose string says something (``{"role": "tool", "content",
    "tool_call_id"}``), found by the pass without ``code_of``."""
    measures: bool
    """Whether a rule screens long texts (``Shape.long``) it does not screen short: the pass then hands a
    plain message on unmeasured only when its text is not long."""
    refusing: tuple[int, ...] = ()
    """The positions of the list rules whose findings may be beyond any fix (``Rule.refuses_list``)."""
    idlers: tuple[int, ...] = ()
    """The positions of the rules that can tell, in bulk, that they have nothing to do on a list
    (``Rule.idle``): ``apply`` asks them first, and leaves out those that say so."""
    subplans: dict[frozenset[int], Plan] = field(default_factory=dict, compare=False)
    """This plan without some of its idlers, by the positions left out (filled in by ``_without``)."""
    same_tails: dict[tuple[int, int, int], bool] = field(default_factory=dict, compare=False)
    """For (shape code, new shape code, position): whether the rules after that position are the same for
    both shapes, so that the pass goes on with them when a fix changes one shape into the other (filled
    in by ``_same_tail``)."""

    @classmethod
    def of(cls, provider: str, rules: Sequence[Rule], *, parts: PartTable = ANY_PARTS) -> Plan:
        draft = Context(provider, {r.id: r for r in rules}, parts)
        bound = sorted((r.bind(draft) for r in rules), key=lambda r: r.stage)
        cx = Context(provider, {r.id: r for r in bound}, parts)
        table = tuple(tuple(pos for pos, rule in enumerate(bound) if rule.screens(shape)) for shape in SHAPES)
        listed = tuple(
            pos
            for pos, rule in enumerate(bound)
            if _overrides(rule, "fix_list") or _overrides(rule, "detect_list")
        )
        watched = [
            tuple(
                pos
                for pos in listed
                if (ROLES[previous] if previous < _OTHER else "", ROLES[role] if role < _OTHER else "")
                in bound[pos].transitions
            )
            for previous in range(_ROLE_COUNT)
            for role in range(_ROLE_COUNT)
        ]
        stateful = tuple(pos for pos, rule in enumerate(bound) if _overrides(rule, "start"))
        fixes = tuple(rule.fix if _overrides(rule, "fix") else None for rule in bound)

        def plain(role: str, *texts: str) -> bool:  # shapes as code_of gives them, to agree by construction
            return not any(table[code_of({"role": role, "content": text})] for text in texts)

        return cls(
            cx=cx,
            rules=tuple(bound),
            table=table,
            detects=tuple(rule.detect for rule in bound),
            fixes=fixes,
            owned_fixes=tuple(
                rule.fix_in_place if _overrides(rule, "fix_in_place") else fix
                for rule, fix in zip(bound, fixes, strict=True)
            ),
            reshapes=tuple([_UNASKED] * len(SHAPES) for _ in bound),
            listed=listed,
            transitions=tuple(watched) if any(watched) else None,
            pairs=tuple(
                (re.compile(f"(?={index // _ROLE_COUNT}{index % _ROLE_COUNT})"), positions)
                for index, positions in enumerate(watched)
                if positions
            ),
            stateful=stateful,
            retriggers=tuple(
                any(bound[later].transitions for later in listed if later > pos) for pos in range(len(bound))
            ),
            watching=frozenset(pos for pos in listed if bound[pos].transitions),
            rerun=tuple(
                tuple(pos for pos in row if pos not in stateful and pos not in listed) for row in table
            ),
            plain_strings=frozenset(role for role in ROLES if plain(role, "x", " ", "")),
            plain_texts=frozenset(role for role in ROLES if plain(role, "x")),
            tool_text=code_of({"role": "tool", "content": "x", "tool_call_id": "x"}),
            measures=any(table[code] != table[code - LONG_STEP] for code in range(LONG_STEP, len(SHAPES))),
            refusing=tuple(pos for pos in listed if bound[pos].refuses_list),
            idlers=tuple(  # those that screen some shape: the others have nothing to leave out
                pos
                for pos, rule in enumerate(bound)
                if _overrides(rule, "idle") and any(pos in row for row in table)
            ),
        )

    # --- apply ---------------------------------------------------------------------------------------

    def apply(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        owned: bool,
        call_ids: list[str] | None = None,
        unfixable: list[Violation] | None = None,
    ) -> list[Message]:
        """The messages with every rule's fix applied: one pass, then the list steps that were triggered.

        With ``owned`` (a fresh dump nobody else holds: every dict and list in it is new) the rules that
        can change a message in place do (``Rule.fix_in_place``), instead of copying it. ``call_ids``,
        when given, are every tool call id of the list, gathered by the protocol check it passed (each
        tool result answers one of them): the idle rules read them instead of gathering them. ``unfixable``,
        when given, gets every finding the profile cannot fix, at the index of its message in ``messages``
        (an empty list, the whole list's own findings, at ``None``).
        """
        given: list[Any] = messages if isinstance(messages, list) else list(messages)
        if self.idlers:
            idle = frozenset(pos for pos in self.idlers if self.rules[pos].idle(given, call_ids))
            if idle:
                return self._without(idle).apply(given, owned=owned, unfixable=unfixable)
        fixes = self.owned_fixes if owned else self.fixes
        classify = code_of_dumped if owned else code_of
        states: list[Any] = list(self.rules)
        for pos in self.stateful:
            states[pos] = self.rules[pos].start()
        left: list[tuple[Any, int, Any, Message]] = []
        out, triggered = self._pass(given, states, fixes, classify, left)
        again = [pos for pos in self.stateful if self.rules[pos].finish(states[pos], out, self.cx) is None]
        if again:  # a stateful rule's guess failed (and put back what it set): once more, with states made
            # from the whole list; what other rules fixed in place they find fixed (every fix is idempotent).
            for pos in again:
                states[pos] = self.rules[pos].start(given)
            left.clear()
            out, triggered = self._pass(given, states, fixes, classify, left)
        out = self._list_steps(out, triggered)
        if unfixable is not None:
            if left:
                unfixable.extend(self._unfixable(given, left))
            for pos in self.refusing:  # the list's own (an empty list, a route that drops the history)
                rule = self.rules[pos]
                for where, finding in rule.detect_list(given, self.cx):
                    notes = rule.describe_list(finding, given, self.cx)
                    unfixable.extend(_violation(where, rule, n) for n in notes if not n.fixable)
            unfixable.sort(key=lambda v: -1 if v.index is None else v.index)
        return out

    def _unfixable(self, given: list[Any], left: list[tuple[Any, int, Any, Message]]) -> list[Violation]:
        """The findings the pass left as they were that their rules call not fixable, at the index of their
        message in ``given``."""
        found: list[Violation] = []
        index = {id(m): i for i, m in enumerate(given)}
        for source, pos, finding, m in left:
            rule = self.rules[pos]
            notes = rule.describe(finding, m, self.cx)
            found.extend(_violation(index.get(id(source)), rule, n) for n in notes if not n.fixable)
        return found

    def _without(self, idle: frozenset[int]) -> Plan:
        """This plan with the rules at positions ``idle`` screening nothing (and no idlers left to ask)."""
        found = self.subplans.get(idle)
        if found is None:
            found = self.subplans[idle] = replace(
                self,
                table=tuple(tuple(pos for pos in row if pos not in idle) for row in self.table),
                rerun=tuple(tuple(pos for pos in row if pos not in idle) for row in self.rerun),
                idlers=(),
                subplans={},
                same_tails={},
            )
        return found

    def _pass(
        self,
        messages: Sequence[Mapping[str, Any]],
        states: list[Any],
        fixes: tuple[Callable[[Message, Any, Any], Any] | None, ...],
        classify: Callable[[Message], int],
        left: list[tuple[Any, int, Any, Message]],
    ) -> tuple[list[Message], Triggers]:
        """The one pass: each message's shape, the rules of that shape asked and their fixes applied in
        stage order (a fix that changes the shape hands on to the rules of the new shape); the list rules
        that something in the pass triggered, with where. ``classify`` finds a given message's shape:
        ``code_of``, or ``code_of_dumped`` for a fresh dump. ``left`` gets each finding no fix took (the
        message given, the rule's position, the finding, the message as the rule saw it)."""
        table, detects, reshapes = self.table, self.detects, self.reshapes
        plain_strings, plain_texts, tool_text = self.plain_strings, self.plain_texts, self.tool_text
        measures, listed = self.measures, self.listed
        triggered: dict[int, list[int]] = {}
        out: list[Message] = []
        append = out.append
        for given in messages:
            m: Message = given if type(given) is dict else dict(given)
            role: Any = m.get("role")
            content = m.get("content")
            if type(content) is str:
                size = len(m)
                # The two commonest messages, found with fewer steps than code_of takes: a plain text that
                # no rule looks at (handed on as it is), and a plain tool result that says something; a
                # long text among them only where no rule bounds texts.
                short = not measures or len(content) <= LONG_TEXT
                if (
                    size == 2
                    and short
                    and (role in plain_strings or (role in plain_texts and content and not content.isspace()))
                ):
                    append(m)
                    continue
                if (
                    size == 3
                    and short
                    and role == "tool"
                    and content
                    and not content.isspace()
                    and "tool_call_id" in m
                ):
                    code = tool_text
                else:
                    code = classify(m)
            else:
                code = classify(m)
            for pos in table[code]:  # the rules of this shape, in stage order
                finding = detects[pos](m, states[pos])
                if not finding:
                    continue
                fix = fixes[pos]
                if fix is None:  # fixed, if at all, by the rule's list step
                    if pos in listed:
                        triggered.setdefault(pos, []).append(len(out))
                    else:
                        left.append((given, pos, finding, m))
                    continue
                new = fix(m, finding, states[pos])
                if new is None:
                    left.append((given, pos, finding, m))
                    continue
                m = new
                if new is DROP:
                    break
                changed = reshapes[pos][code]
                if changed < 0:
                    changed = self._code_after(pos, code, m)
                if changed == code:
                    continue
                if self._same_tail(code, changed, pos):  # the same rules to come: on with them
                    code = changed
                    continue
                # the later rules of the new shape, from this rule's stage on
                m, code = self._reshaped(m, changed, pos, states, fixes, triggered, len(out), given, left)
                break
            if m is DROP:
                continue
            append(m)
        if self.transitions is not None:  # the neighbours as the pass left them, found in bulk
            for pos, at in self._triggers(out).items():
                found = triggered.get(pos)
                triggered[pos] = at if found is None else sorted({*found, *at})
        return out, triggered

    def _reshaped(
        self,
        m: Message,
        code: int,
        after: int,
        states: list[Any],
        fixes: tuple[Callable[[Message, Any, Any], Any] | None, ...],
        triggered: dict[int, list[int]],
        index: int,
        given: Any,
        left: list[tuple[Any, int, Any, Message]],
    ) -> tuple[Message, int]:
        """``_pass`` for a message whose shape a fix changed: the rules of its new shape ``code`` that
        come after position ``after``, the shape followed through every further change. Returns the
        message (or ``DROP``) and its final shape. Its steps are those of the loop in ``_pass``, which
        writes them out inline because it runs for every message, where a call per rule would cost."""
        table, detects = self.table, self.detects
        positions = table[code]
        i, count = bisect_right(positions, after), len(positions)
        while i < count:
            pos = positions[i]
            i += 1
            finding = detects[pos](m, states[pos])
            if not finding:
                continue
            fix = fixes[pos]
            if fix is None:
                if pos in self.listed:
                    triggered.setdefault(pos, []).append(index)
                else:
                    left.append((given, pos, finding, m))
                continue
            new = fix(m, finding, states[pos])
            if new is None:
                left.append((given, pos, finding, m))
                continue
            m = new
            if new is DROP:
                break
            changed = self._code_after(pos, code, m)
            if changed != code:
                code, positions = changed, table[changed]
                i, count = bisect_right(positions, pos), len(positions)
        return m, code

    def _code_after(self, pos: int, code: int, m: Message) -> int:
        """The shape code of ``m``, which the rule at ``pos`` fixed from shape ``code``: what the rule
        predicts (``Rule.reshape``, asked the first time and kept in ``reshapes``), else measured."""
        changed = self.reshapes[pos][code]
        if changed == _UNASKED:
            shape = self.rules[pos].reshape(SHAPES[code])
            changed = self.reshapes[pos][code] = _UNKNOWN if shape is None else SHAPE_CODES[shape]
        return code_of(m) if changed == _UNKNOWN else changed

    def _same_tail(self, code: int, changed: int, pos: int) -> bool:
        """Whether the rules after position ``pos`` are the same for shapes ``code`` and ``changed``."""
        key = (code, changed, pos)
        same = self.same_tails.get(key)
        if same is None:
            rest = self.table[code]
            other = self.table[changed]
            same = self.same_tails[key] = rest[bisect_right(rest, pos) :] == other[bisect_right(other, pos) :]
        return same

    def _list_steps(self, out: list[Message], triggered: Triggers) -> list[Message]:
        """The list rules that are triggered (or always run), in stage order; then the message rules on
        the messages they made. Another round only when those changed something, until a round changes
        nothing."""
        rules, cx, watching = self.rules, self.cx, self.watching
        for _ in range(_MAX_ROUNDS):
            made: list[Message] = []
            for pos in self.listed:
                rule = rules[pos]
                if pos in triggered:
                    at = triggered[pos]
                elif rule.always:
                    at = None
                else:
                    continue
                new = rule.fix_list(out, cx, made, at)
                if new is out:
                    continue
                out = new
                # The indexes seen before this step no longer point where they did: look anywhere, or at
                # the neighbours as they are now.
                triggered = {other: None for other in triggered if other not in watching}
                if self.retriggers[pos]:
                    triggered.update(self._triggers(out))
            if not made:
                return out
            out, changed = self._again(out, made)
            if not changed:
                return out
            triggered = dict(self._triggers(out))
        return out

    def _again(self, out: list[Message], made: list[Message]) -> tuple[list[Message], bool]:
        """The stateless message rules on the messages a list step made (merged turns, bridging turns,
        moved media): they are new, and may need what the pass gave the others. Returns the list, and
        whether any of them changed."""
        rerun, detects, fixes, rules = self.rerun, self.detects, self.fixes, self.rules
        plain_strings = self.plain_strings
        replaced: dict[int, Any] = {}
        for made_one in made:
            m: Any = made_one
            content = m.get("content")
            if (
                len(m) == 2
                and type(content) is str
                and m.get("role") in plain_strings
                and not (self.measures and len(content) > LONG_TEXT)
            ):
                continue
            for pos in rerun[code_of(m)]:
                finding = detects[pos](m, rules[pos])
                fix = fixes[pos]
                if not finding or fix is None:
                    continue
                new = fix(m, finding, rules[pos])
                if new is not None:
                    m = new
                if m is DROP:
                    break
            if m is not made_one:
                replaced[id(made_one)] = m
        if not replaced:
            return out, False
        fixed = [replaced.get(id(m), m) for m in out]
        return [m for m in fixed if m is not DROP], True

    def _triggers(self, messages: Sequence[Message]) -> dict[int, list[int]]:
        """The list rules the neighbours in ``messages`` trigger, with where (indexes in order).

        The roles are written one character each (their codes; ``_OTHER`` before the first message and
        for any other role) and each watched pair is found by its pattern: C-level loops, where a Python
        one would cost a tenth of the plain dump on a long list."""
        found: dict[int, list[int]] = {}
        if not self.pairs:
            return found
        roles = map(dict.get, messages, repeat("role"))
        try:
            text = _OTHER_CHAR + "".join(map(_ROLE_CHARS.get, roles, repeat(_OTHER_CHAR)))
        except TypeError:  # a role that is not hashable (a raw list given to apply): one at a time
            text = _OTHER_CHAR + "".join(
                _ROLE_CHARS.get(m.get("role"), _OTHER_CHAR) if type(m.get("role")) is str else _OTHER_CHAR
                for m in messages
            )
        for pattern, positions in self.pairs:
            at = [match.start() for match in pattern.finditer(text)]
            if at:
                for pos in positions:
                    found.setdefault(pos, []).extend(at)
        for at in found.values():
            at.sort()
        return found

    # --- check ---------------------------------------------------------------------------------------

    def check(self, messages: Sequence[Mapping[str, Any]]) -> list[Violation]:
        """Every violation of the rules in ``messages`` as they are, in message order."""
        rules, table, detects, cx = self.rules, self.table, self.detects, self.cx
        states: list[Any] = list(rules)
        for pos in self.stateful:
            states[pos] = rules[pos].start()
        found: list[Violation] = []
        given = [m if type(m) is dict else dict(m) for m in messages]
        for index, m in enumerate(given):
            for pos in table[code_of(m)]:
                finding = detects[pos](m, states[pos])
                if finding:
                    rule = rules[pos]
                    found.extend(_violation(index, rule, note) for note in rule.describe(finding, m, cx))
        for pos in self.listed:
            rule = rules[pos]
            for where, finding in rule.detect_list(given, cx):
                found.extend(_violation(where, rule, note) for note in rule.describe_list(finding, given, cx))
        return sorted(found, key=lambda v: -1 if v.index is None else v.index)
