"""``Profile``: what one provider (or one model family) needs of an OpenAI-shape message list: its rules.

A profile is a provider name and a tuple of rules (``messages.profiles.rules``), each one quirk with its
detection, its fix and its row of the quirk catalog. ``apply`` fixes what the rules find and ``check``
reports it; both run the same compiled plan (``messages.profiles._plan``). Rules every profile has
whatever its provider, unless it gives its own of the same id (``UNIVERSAL_RULES``): an empty conversation
is reported, this package's own bookkeeping key (``provider`` on an assistant turn) is never sent,
litellm's own keys go where the route cannot carry them (``rules.extensions``: ``cache_control``, a tool
result's ``is_error``, litellm's part keys), and every content part the profile's table does not take is
reported (``parts``, a ``PartTable``: the part screen, ``rules.UnsupportedParts``).

What a profile cannot fix is never sent by ``apply`` (nor by ``dump_messages(..., model=...)``): it raises
``UnfixableError`` before any request, listing each finding, unless ``on_unfixable="send"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

from messages.errors import InvalidArgumentError, UnfixableError
from messages.profiles._ids import IdRule
from messages.profiles._parts import ANY_PARTS, PartTable
from messages.profiles._plan import Plan
from messages.profiles._rule import Context, Message, Note, Rule, Shape, Violation
from messages.profiles.rules.content import UnsupportedParts
from messages.profiles.rules.extensions import CacheMarks, ErrorFlags, PartKeys

__all__ = ["UNIVERSAL_RULES", "NotEmpty", "OnUnfixable", "OwnKeys", "Profile"]

OnUnfixable = Literal["raise", "send"]
"""What ``Profile.apply`` and ``dump_messages`` do when a finding remains that the profile cannot fix:
``"raise"`` an ``UnfixableError`` before any request (the default), or ``"send"`` the list as it is."""


def _unfixable_list(on_unfixable: str) -> list[Violation] | None:
    """Where the plan puts what it cannot fix: a list to fill when the caller wants it refused, ``None``
    (nothing gathered, nothing checked) when it is to be sent anyway."""
    if on_unfixable == "raise":
        return []
    if on_unfixable == "send":
        return None
    raise ValueError(f'on_unfixable must be "raise" or "send"; got {on_unfixable!r}')


@dataclass(frozen=True, kw_only=True)
class NotEmpty(Rule):
    """An empty conversation is reported (quirk 12: every provider rejects an empty list). Not fixable:
    only the caller knows what to say."""

    id = "empty-conversation"
    stage = 0
    always = True
    refuses_list = True

    row: int | None = 12

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        return [] if messages else [(None, True)]

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        yield Note("the conversation is empty; every provider rejects an empty list", fixable=False)


@dataclass(frozen=True, kw_only=True)
class OwnKeys(Rule):
    """``provider``, which an ``AIMessage`` dump carries to say who signed its reasoning payloads, is this
    package's own bookkeeping: no provider knows it, so it is never sent (quirk 65). Silent."""

    id = "own-keys"
    stage = 34  # after the rules that read it (foreign payloads)

    row: int | None = 65

    def screens(self, shape: Shape) -> bool:
        return shape.odd

    def detect(self, m: Message, run: Any) -> bool:
        return "provider" in m

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        return {k: v for k, v in m.items() if k != "provider"}

    def fix_in_place(self, m: Message, finding: Any, run: Any) -> Message:
        del m["provider"]
        return m


UNIVERSAL_RULES: tuple[Rule, ...] = (
    NotEmpty(),
    OwnKeys(),
    CacheMarks(),
    ErrorFlags(),
    PartKeys(),
    UnsupportedParts(),
)
"""The rules every profile has, added when it is compiled unless it gives its own of the same id."""


def _refuse_non_rules(rules: Iterable[object], first: int = 0) -> None:
    for index, rule in enumerate(rules, start=first):
        if not isinstance(rule, Rule):
            raise InvalidArgumentError(
                f"a profile's rules are Rule objects (messages.profiles.rules); rule {index} is a "
                f"{type(rule).__name__}: {rule!r:.80}",
                argument="rules",
                index=index,
            )


@dataclass(frozen=True)
class Profile:
    """What one provider, or one model family of it, needs done to an OpenAI-shape message list.

    ``Profile("my_proxy", rules=(...))`` builds one; ``profile.with_family("model-a", NoPrefill(row=15))``
    and ``profile.with_rules(...)`` derive one (a rule replaces the profile's rule of the same id);
    ``register_profile`` makes ``get_profile`` find it. ``apply`` is pure and idempotent and keeps every
    non-empty text and every tool result, and refuses what it cannot fix; ``check`` lists what breaks the
    provider's rules.
    """

    provider: str
    """The litellm provider this profile is for (``"openai"``, ``"gemini"``, ``"bedrock"``...)."""
    rules: tuple[Rule, ...] = ()
    """The provider's rules (``messages.profiles.rules``), at most one per rule id."""
    family: str | None = None
    """The model-family rule this profile is for (a model-name key such as ``"o1-mini"``); ``None``: the
    provider's own profile."""
    is_default: bool = False
    """Whether this is the OpenAI-compatible default, given because no profile is registered for the
    provider."""
    parts: PartTable = ANY_PARTS
    """The content parts the provider takes, role by role, with the quirk row and the source of each
    (``messages.profiles.PartTable``); every other part is reported as not fixable. Default: every part in
    every role (nothing is refused)."""
    notes: str = field(default="", compare=False)
    """What litellm already does for this provider, and what is left to it (for docs and snapshots)."""

    def __post_init__(self) -> None:
        if not self.provider or not isinstance(self.provider, str):
            raise InvalidArgumentError(
                f"a profile needs a provider name (a non-empty str); got {self.provider!r}",
                argument="provider",
            )
        rules = tuple(self.rules)
        object.__setattr__(self, "rules", rules)
        seen: set[str] = set()
        for index, rule in enumerate(rules):
            _refuse_non_rules((rule,), index)
            if rule.id in seen:
                raise InvalidArgumentError(
                    f"profile {self.name!r} has two {rule.id!r} rules; a profile holds one rule per id "
                    "(use with_rules to replace one)",
                    argument="rules",
                    index=index,
                )
            seen.add(rule.id)
        if not isinstance(self.parts, PartTable):
            raise InvalidArgumentError(
                f"parts is a {type(self.parts).__name__}, not a PartTable", argument="parts"
            )

    @property
    def name(self) -> str:
        """``provider`` or ``provider:family``: how error messages and snapshots name the profile."""
        return self.provider if self.family is None else f"{self.provider}:{self.family}"

    def rule(self, rule_id: str) -> Rule | None:
        """The profile's rule of that id, if it has one.

        Args:
            rule_id: a rule id (``"tool-call-id"``).

        Returns:
            The rule, or ``None``.

        Raises nothing.
        """
        return next((r for r in self.rules if r.id == rule_id), None)

    def with_rules(
        self, *rules: Rule, without: Iterable[str] = (), parts: PartTable | None = None
    ) -> Profile:
        """This profile with ``rules`` (each replaces the rule of its id, or is added), without the rules
        whose ids ``without`` names, and with the table ``parts`` when given.

        Args:
            *rules: rules to add, each replacing the profile's rule of the same id.
            without: the ids of rules to leave out.
            parts: the content parts the provider takes, by role (``None``: the profile's).

        Returns:
            A new profile; this one is unchanged.

        Raises:
            InvalidArgumentError: an item of ``rules`` is not a ``Rule``, ``without`` is a single string
                (give a list of ids), or ``parts`` is not a ``PartTable`` (``argument`` names which).
        """
        _refuse_non_rules(rules)
        if isinstance(without, str):
            raise InvalidArgumentError(
                f"without is the string {without!r}; give the rule ids in a list: without=[{without!r}]",
                argument="without",
            )
        gone = set(without)
        given = {r.id: r for r in rules}
        kept = [given.pop(r.id, r) for r in self.rules if r.id not in gone]
        return replace(self, rules=(*kept, *given.values()), parts=self.parts if parts is None else parts)

    def with_family(
        self, family: str, *rules: Rule, without: Iterable[str] = (), parts: PartTable | None = None
    ) -> Profile:
        """This profile for the models of ``family`` (a model-family rule), with ``rules``, ``without``
        and ``parts`` as in ``with_rules``.

        Args:
            family: the model family (``"o1-mini"``), as the profile's name says it.
            *rules: rules to add, each replacing the profile's rule of the same id.
            without: the ids of rules to leave out.
            parts: the content parts the family's models take (``None``: the profile's).

        Returns:
            A new profile; this one is unchanged.

        Raises:
            InvalidArgumentError: as ``with_rules``.
        """
        return replace(self.with_rules(*rules, without=without, parts=parts), family=family)

    # --- what the rules say, for callers and tests ---------------------------------------------------

    @property
    def tool_call_ids(self) -> IdRule:
        """The ids the provider accepts (the ``tool-call-id`` rule's), or any id when it has none."""
        rule = self.rule("tool-call-id")
        ids = getattr(rule, "ids", None)
        return ids if isinstance(ids, IdRule) else IdRule()

    @property
    def supports_tools(self) -> bool:
        """Whether tool calls reach the provider as tool calls (not rendered as text)."""
        return self.rule("tools-unsupported") is None

    @property
    def rows(self) -> Mapping[str, int]:
        """The quirk catalog row each rule of this profile cites, by rule id."""
        return {r.id: r.row for r in self._plan.rules if r.row is not None}

    # --- apply and check -----------------------------------------------------------------------------

    def apply(
        self, messages: Sequence[Mapping[str, Any]], *, on_unfixable: OnUnfixable = "raise"
    ) -> list[dict[str, Any]]:
        """``messages`` adjusted for this provider: a new list, the input untouched.

        Pure and idempotent (``apply(apply(x)) == apply(x)``); every user, assistant and tool text that is
        not blank, and every tool result, is still there (it may be re-encoded or moved). A message that
        needs no change is passed on as the same dict object.

        What the profile cannot fix (content the provider has no form for, a tool name it rejects...) raises
        ``UnfixableError`` (a ``ProfileError`` and a ``ValueError``), which lists each finding with its
        message index and quirk; nothing is dropped to make the request pass. ``on_unfixable="send"``
        returns the list as it is instead, for a caller who knows better.

        Args:
            messages: OpenAI-shape message dicts (``dump_messages(conversation)``); never changed.
            on_unfixable: ``"raise"`` to refuse what no rule can fix, ``"send"`` to return the list anyway.

        Returns:
            The list as the provider takes it.

        Examples:
            ```python
            from messages import AIMessage, ToolCall, ToolMessage, UserMessage, dump_messages
            from messages.profiles import get_profile

            call = ToolCall(id="call_abc123DEF456ghi789", name="weather", arguments={})
            conversation = [UserMessage(content="Weather?"), AIMessage(tool_calls=[call]),
                            ToolMessage.for_call(call, "rain")]
            sent = get_profile("mistral").apply(dump_messages(conversation))
            assert len(sent[2]["tool_call_id"]) == 9  # Mistral's ids: 9 letters and digits
            ```

        Raises:
            UnfixableError: what the provider cannot take and no rule can fix (each message, part and quirk
                listed), unless ``on_unfixable="send"``; nothing is returned.
            ValueError: ``on_unfixable`` is neither ``"raise"`` nor ``"send"``.
        """
        unfixable = _unfixable_list(on_unfixable)
        return self._refused(self._plan.apply(messages, owned=False, unfixable=unfixable), unfixable)

    def _apply_owned(
        self,
        messages: list[dict[str, Any]],
        call_ids: list[str] | None = None,
        on_unfixable: OnUnfixable = "raise",
    ) -> list[dict[str, Any]]:
        """``apply`` for a list that nobody else holds (a fresh ``dump_messages`` list); ``call_ids``, where
        the protocol check gathered them, are every tool call id of the list (``Rule.idle``)."""
        unfixable = _unfixable_list(on_unfixable)
        applied = self._plan.apply(messages, owned=True, call_ids=call_ids, unfixable=unfixable)
        return self._refused(applied, unfixable)

    def _refused(
        self, applied: list[dict[str, Any]], unfixable: list[Violation] | None
    ) -> list[dict[str, Any]]:
        if unfixable:
            raise UnfixableError(self.name, tuple(unfixable))
        return applied

    def check(self, messages: Sequence[Mapping[str, Any]]) -> list[Violation]:
        """Every place where ``messages`` breaks this provider's rules, in message order.

        On a plain dump it says what litellm alone would send that the provider rejects or silently
        changes; on ``apply(messages)`` it comes back with only what ``apply`` cannot fix
        (``Violation.fixable`` is False for those).

        Args:
            messages: OpenAI-shape message dicts; never changed.

        Returns:
            The violations, each with its message index, rule, quirk row and whether ``apply`` fixes it.

        Raises nothing.
        """
        return self._plan.check(messages)

    @cached_property
    def _plan(self) -> Plan:
        own = {r.id for r in self.rules}
        universal = tuple(r for r in UNIVERSAL_RULES if r.id not in own)
        return Plan.of(self.provider, (*universal, *self.rules), parts=self.parts)
