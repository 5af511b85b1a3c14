"""What a provider rule is: one home for one quirk, its detection, its fix, its catalog row and its reach.

A ``Rule`` is a small frozen object. A profile is a provider name and a tuple of rules; ``Profile.apply``
and ``Profile.check`` compile that tuple once (``messages.profiles._plan``) and run it. Both read the
same detection code, so what ``check`` reports and what ``apply`` fixes cannot drift apart.

A rule may work at two levels:

* one message at a time: ``detect(m, run)`` returns a finding (anything truthy) or a falsy value;
  ``fix(m, finding, run)`` returns the new message, ``None`` for no change, or ``DROP``; ``describe``
  turns a finding into the lines ``check`` reports. Which messages a rule can find anything in is declared
  by ``screens(shape)``, over a coarse ``Shape`` (role, kind of content, tool calls or not, keys beyond the
  plain ones or not): the compiled profile asks only the rules that screen a message's shape, so that the
  common message (a plain text) costs one table lookup. ``tests/test_rules.py`` holds every rule's screen
  to its detection.
* the whole list: ``detect_list(messages, cx)`` and ``fix_list(messages, cx)``, for what depends on a
  message's neighbours (turns that must alternate, the first and last turn, media moved out of tool
  results). They run only when something may be there: a pair of neighbouring roles the rule watches
  (``transitions``), a message-level detection of the rule (its ``detect`` without a ``fix``), or always
  (``always``, for rules that look at the ends of the list only).

Every fix is pure (a message that changes is a new dict, the input is never mutated) and idempotent, and
keeps content: it may move or re-encode a text, a part or a tool result, never drop one that says something.
Messages made by a list step (a merged turn, a bridging turn) go through the message-level rules again.

Adding a quirk: a ``Rule`` subclass in ``messages/profiles/rules/`` (its id, its stage, its screen, its
detection and fix, its default catalog row), and one line in each provider file whose profile needs it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, NamedTuple

from messages._docs import quirk_url
from messages.profiles._parts import ANY_PARTS, PartTable

__all__ = [
    "DROP",
    "KINDS",
    "LONG_STEP",
    "LONG_TEXT",
    "ROLES",
    "SHAPES",
    "SHAPE_CODES",
    "SYSTEM_ROLES",
    "Context",
    "Finding",
    "Kind",
    "Message",
    "Note",
    "Rule",
    "Shape",
    "Violation",
    "blank",
    "blank_text",
    "code_of",
    "code_of_dumped",
    "is_system",
    "is_text_part",
    "shape_of",
]

Message = dict[str, Any]
"""One message in the OpenAI Chat Completions shape."""

Finding = Any
"""What a rule's detection found: anything truthy (a key list, the ids to rename, ``True``...)."""


class Note(NamedTuple):
    """One line ``check`` reports for a finding."""

    text: str
    """What is wrong, and what the provider or litellm does with it."""
    fixable: bool = True
    """Whether ``Profile.apply`` fixes it."""
    rule: str | None = None
    """The rule id reported, where a rule reports under another of its ids (``Rule.reports``)."""
    row: int | None = None
    """The quirk cited, where it is not the rule's own ``row``."""


class _Drop:
    __slots__ = ()

    def __repr__(self) -> str:
        return "DROP"


DROP: Final[Any] = _Drop()
"""What a message-level ``fix`` returns to leave the message out (a blank turn the provider rejects)."""

ROLES: Final = ("system", "developer", "user", "assistant", "tool")
"""The roles of the OpenAI shape, in the order their codes have; any other role has code 5."""

SYSTEM_ROLES: Final = frozenset({"system", "developer"})

Kind = int
"""The kind of a message's content: one of ``KINDS``."""
TEXT, SPACE, EMPTY, NONE, PARTS, OTHER = range(6)
KINDS: Final[Mapping[str, Kind]] = {
    "text": TEXT,
    "space": SPACE,
    "empty": EMPTY,
    "none": NONE,
    "parts": PARTS,
    "other": OTHER,
}
"""``text``: a string with a non-whitespace character; ``space``: whitespace only; ``empty``: ``""``;
``none``: ``None`` or no ``content`` key; ``parts``: a list; ``other``: anything else."""

_ROLE_CODES: Final[dict[Any, int]] = {role: code for code, role in enumerate(ROLES)}
_PLAIN_SIZE: Final = (2, 2, 2, 2, 3, -1)  # by role code: role and content (and tool_call_id)


@dataclass(frozen=True, slots=True)
class Shape:
    """What the compiled profile knows of a message before asking any rule: a rule screens these."""

    role: str | None
    """One of ``ROLES``, or ``None`` for any other role (or none)."""
    kind: Kind
    """The kind of its content (``KINDS``)."""
    calls: bool
    """Whether it has a non-empty ``tool_calls``."""
    odd: bool
    """Whether its keys are not exactly the plain ones: ``role`` and ``content``, with ``tool_calls`` when
    it calls tools, and ``tool_call_id`` for a tool result. A ``name``, a ``refusal``, reasoning payloads,
    ``cache_control``, a missing ``content``: all odd."""
    odd_calls: bool = False
    """Whether a tool call is not a plain ``{"id", "type", "function": {"name", "arguments"}}``: a key
    more or less (``provider_specific_fields``, litellm's ``index``), or not a dict."""
    blank_arguments: bool = False
    """Whether a tool call's arguments are ``""`` or whitespace (a call made without arguments)."""
    long: bool = False
    """Whether its content is a string of more than ``LONG_TEXT`` characters: the one length the pass
    measures itself, for the rules that bound texts (they screen this, and parts, whose texts the pass
    does not measure)."""


_CALL_STATES: Final = (
    (False, False, False),
    (True, False, False),
    (True, False, True),
    (True, True, False),
    (True, True, True),
)
"""(calls, odd calls, blank arguments), by the calls part of a code: none; plain; plain with blank
arguments; odd; odd with blank arguments."""

SHAPES: Final = tuple(
    Shape(ROLES[role] if role < len(ROLES) else None, kind, calls, bool(odd), odd_calls, blank, bool(long))
    for long in (0, 1)
    for role in range(len(ROLES) + 1)
    for kind in range(len(KINDS))
    for calls, odd_calls, blank in _CALL_STATES
    for odd in (0, 1)
)
"""Every shape, at the index ``code_of`` gives: ``long * LONG_STEP + role * ROLE_STEP + kind * 10 + calls
* 2 + odd``, with calls the index in ``_CALL_STATES``."""

SHAPE_CODES: Final[Mapping[Shape, int]] = {shape: code for code, shape in enumerate(SHAPES)}
"""The code of each shape (``SHAPES`` inverted)."""

ROLE_STEP: Final = 60
"""How far apart the codes of two roles are: ``code % LONG_STEP // ROLE_STEP`` is the role code."""
LONG_STEP: Final = ROLE_STEP * (len(ROLES) + 1)
"""How far the code of a shape with a long text is from the same shape with a short one."""
LONG_TEXT: Final = 1 << 20
"""The length (1,048,576 characters) above which a string content makes a shape ``long``. A rule bounding
texts to a length of at least this screens long shapes only, so ordinary texts never reach it."""


def code_of(m: Mapping[str, Any]) -> int:
    """The index in ``SHAPES`` of the shape of ``m``: what the compiled profile looks its rules up by.

    Written for speed (it runs for every message of a profiled dump that is not a plain text): a handful
    of comparisons, and one loop over the tool calls.
    """
    role = _ROLE_CODES.get(m.get("role"), 5)
    content = m.get("content")
    if type(content) is str:
        kind = (SPACE if content.isspace() else TEXT) if content else EMPTY
        base = role * 60 + kind * 10 + (LONG_STEP if len(content) > LONG_TEXT else 0)
    else:
        kind = NONE if content is None else PARTS if type(content) is list else OTHER
        base = role * 60 + kind * 10
    calls = m.get("tool_calls")
    if not calls:
        odd = len(m) != _PLAIN_SIZE[role] or "content" not in m or (role == 4 and "tool_call_id" not in m)
        return base + odd
    odd = len(m) != _PLAIN_SIZE[role] + 1 or "content" not in m
    odd_calls = blank = type(calls) is not list  # not a list: whatever the rules may find
    if not odd_calls:
        for c in calls:
            if type(c) is not dict:
                odd_calls = True
                continue
            if len(c) != 3 or "id" not in c or "type" not in c:
                odd_calls = True
            f = c.get("function")
            if type(f) is not dict:
                odd_calls = True
                continue
            if len(f) != 2 or "name" not in f:
                odd_calls = True
            arguments = f.get("arguments")
            if type(arguments) is str:
                if not arguments or arguments.isspace():
                    blank = True
            else:
                odd_calls = True
    return base + (6 if odd_calls else 2) + (2 if blank else 0) + odd


def code_of_dumped(m: Mapping[str, Any]) -> int:
    """``code_of`` for a message this package's dumper made (``dump_messages`` hands its fresh dump to the
    profile): the same code, found with fewer steps for a turn that calls tools, since the dumper fixes
    each call's structure (``id``, ``type``, ``function`` with ``name`` and a string ``arguments``, and
    ``provider_specific_fields`` when set): a call is odd exactly when it has that fourth key."""
    calls = m.get("tool_calls")
    if not calls or m.get("role") != "assistant":
        return code_of(m)
    content = m.get("content")
    if type(content) is str:
        kind = (SPACE if content.isspace() else TEXT) if content else EMPTY
        base = 180 + kind * 10 + (LONG_STEP if len(content) > LONG_TEXT else 0)  # 180: the assistant's
    else:
        base = 180 + (NONE if content is None else PARTS) * 10
    odd_calls = blank = False
    for c in calls:
        if len(c) != 3:
            odd_calls = True
        arguments = c["function"]["arguments"]
        if not arguments or arguments.isspace():
            blank = True
    odd = len(m) != 3 or "content" not in m  # role, content and tool_calls are the plain keys
    return base + (6 if odd_calls else 2) + (2 if blank else 0) + odd


def shape_of(m: Mapping[str, Any]) -> Shape:
    """The ``Shape`` of a message."""
    return SHAPES[code_of(m)]


@dataclass(frozen=True)
class Violation:
    """One place where a message list breaks a provider's rule: ``str()`` says where, what, the rule, and
    the quirk it comes from with the command that prints it and its page on the documentation site
    (``[tool-call-id, quirk 30: messages quirks 30, https://.../quirks/#quirk-30]``)."""

    index: int | None
    """The position of the offending message in the list checked, or ``None`` for the whole list."""
    rule: str
    """A short rule id (``"tool-call-id"``, ``"empty-text"``, ...)."""
    row: int | None
    """The quirk the rule comes from: its row in the package's quirk catalog (``messages quirks N``)."""
    message: str
    """What is wrong, where, and what the provider or litellm does with it."""
    fixable: bool = True
    """Whether ``Profile.apply`` fixes it; the others need the caller (a vision model, a real filename...)."""

    def __str__(self) -> str:
        where = "the conversation" if self.index is None else f"message {self.index}"
        row = self.row
        source = f", quirk {row}: messages quirks {row}, {quirk_url(row)}" if row is not None else ""
        return f"{where}: {self.message} [{self.rule}{source}]"


@dataclass(frozen=True)
class Context:
    """What a rule may know of the profile it is compiled into."""

    provider: str
    """The profile's provider (``"mistral"``), for the texts of violations."""
    rules: Mapping[str, Rule]
    """Every rule of the profile, by id."""
    parts: PartTable = ANY_PARTS
    """The content the profile takes, role by role (``Profile.parts``)."""

    @property
    def strict(self) -> bool:
        """Whether litellm sends the messages as they are to a provider that rejects unknown keys (the
        profile has the ``unknown-key`` rule)."""
        return "unknown-key" in self.rules

    def kept_keys(self, role: str) -> frozenset[str]:
        """The keys beyond the OpenAI core that the profile's rules send on messages of ``role``."""
        found: set[str] = set()
        for rule in self.rules.values():
            found |= rule.sends_keys(role)
        return frozenset(found)

    def kept_call_keys(self) -> frozenset[str]:
        """The keys beyond ``id``, ``type`` and ``function`` that the profile's rules send on a tool call."""
        found: set[str] = set()
        for rule in self.rules.values():
            found |= rule.sends_call_keys()
        return frozenset(found)


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One provider quirk: how to find it in a message list, how to fix it, and which row of the quirk
    catalog it comes from. Subclasses set ``id`` and ``stage`` and override the hooks they need."""

    id: ClassVar[str]
    """The rule id ``check`` reports (``"tool-call-id"``). A profile holds at most one rule per id."""
    stage: ClassVar[int]
    """Where the rule runs among the others of a profile: its message-level hooks in this order on each
    message, then its list-level hooks in this order on the list."""
    reports: ClassVar[tuple[str, ...]] = ()
    """Other rule ids this rule reports under (``Note.rule``), beside its own."""

    row: int | None = None
    """The quirk catalog row this rule implements for the profile it is in (``messages quirks N``)."""

    # --- message level -------------------------------------------------------------------------------

    def screens(self, shape: Shape) -> bool:
        """Whether ``detect`` may find something in a message of ``shape`` (decided once per shape, when
        the profile is compiled). Default: no message-level detection.

        Args:
            shape: what the profile knows of a message before reading it: its role, its keys and its
                parts' types.

        Returns:
            ``True`` when ``detect`` must look at messages of this shape.

        Raises nothing.
        """
        return False

    def detect(self, m: Message, run: Any) -> Finding:
        """What is wrong with ``m`` for this rule (falsy: nothing). ``run`` is this rule's state for one
        pass over a list (``start``), or the rule itself.

        Args:
            m: one message of the dumped list (an OpenAI-shape dict).
            run: this rule's state for the pass (``start``), or the rule itself.

        Returns:
            A finding (anything true) that ``fix`` and ``describe`` are given back, or something false.

        Raises nothing.
        """
        return None

    def fix(self, m: Message, finding: Finding, run: Any) -> Message | None:
        """``m`` fixed (a new dict), ``None`` when it needs no change, or ``DROP``.

        Args:
            m: the message ``detect`` found something in; never changed.
            finding: what ``detect`` returned for it.
            run: this rule's state for the pass (``start``), or the rule itself.

        Returns:
            The fixed message, ``None`` for no change, or ``DROP`` to leave the message out.

        Raises nothing.
        """
        return None

    keeps_shape: ClassVar[bool] = False
    """Whether ``fix`` never changes a message's ``Shape`` (new ids, arguments ``"{}"``): the compiled
    profile then goes on with the same rules without computing the shape again."""

    def reshape(self, shape: Shape) -> Shape | None:
        """The shape a message of ``shape`` has after ``fix``, where ``shape`` alone decides it (a key
        added, a content set to ``None``); ``None`` when it depends on more, and the pass computes it
        (``code_of``). Asked once per shape, when the compiled profile first fixes a message of that
        shape. Default: ``shape`` itself for a rule that ``keeps_shape``, else ``None``.

        Args:
            shape: the shape of a message before ``fix``.

        Returns:
            Its shape after ``fix``, or ``None`` when the shape alone does not decide it.

        Raises nothing.
        """
        return shape if self.keeps_shape else None

    def describe(self, finding: Finding, m: Message, cx: Context) -> Iterable[Note]:
        """The lines ``check`` reports for a message-level finding; none for a silent fix (a change the
        provider would not notice, such as dropping a key litellm's route never sends).

        Args:
            finding: what ``detect`` returned.
            m: the message it was found in.
            cx: the profile being applied (its provider's name, its other rules).

        Returns:
            The notes to report, each a line of ``check``'s output.

        Raises nothing.
        """
        return ()

    def idle(self, messages: Sequence[Message], call_ids: list[str] | None = None) -> bool:
        """Whether this rule finds nothing anywhere in ``messages``, decided in bulk before the pass (ids
        gathered and checked at once, rather than message by message): ``apply`` then leaves it out. It
        must be exact where it says ``True`` (no message-level detection in any message); ``False`` is
        always safe. ``call_ids``, when given, are every tool call id of ``messages`` in order, gathered
        by the protocol check the list passed: every tool result answers one of them, by the same id.
        Default: ``False``, the rule is asked message by message.

        Args:
            messages: the whole dumped list.
            call_ids: every tool-call id of ``messages`` in order, when the protocol check gathered them.

        Returns:
            ``True`` only when no message of ``messages`` needs this rule.

        Raises nothing.
        """
        return False

    def start(self, given: Sequence[Message] | None = None) -> Any:
        """This rule's state for one pass over a list: the rule itself for a stateless rule. ``given`` is
        the whole list, on a second pass asked for by ``finish``.

        Args:
            given: the whole list, for a second pass; ``None`` on the first.

        Returns:
            The state ``detect``, ``fix`` and ``finish`` are given as ``run``.

        Raises nothing.
        """
        return self

    def finish(self, run: Any, messages: list[Message], cx: Context) -> list[Message] | None:
        """After the pass: settle what the state knows. ``None`` asks for the pass again, with the state
        ``start(given)`` makes from the whole list (ids guessed one at a time that turned out to collide).
        Default: the messages as they are.

        Args:
            run: this rule's state for the pass (``start``).
            messages: the list as the pass left it.
            cx: the profile being applied.

        Returns:
            The list, settled; ``None`` to ask for the pass again.

        Raises nothing.
        """
        return messages

    # --- list level ----------------------------------------------------------------------------------

    transitions: ClassVar[frozenset[tuple[str, str]]] = frozenset()
    """Pairs of neighbouring roles (previous, this) that make ``detect_list`` worth running."""
    always: ClassVar[bool] = False
    """Whether ``detect_list``/``fix_list`` run on every list (rules that look at its ends only)."""
    refuses_list: ClassVar[bool] = False
    """Whether ``detect_list`` may find what no fix can (an empty list, a route that drops the history):
    ``apply`` then asks it on every list it is to refuse from, so keep its ``detect_list`` cheap."""

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Finding]]:
        """What is wrong with the list as a whole, by message index (``None``: the whole list).

        Args:
            messages: the whole dumped list.
            cx: the profile being applied.

        Returns:
            ``(index, finding)`` pairs (``index`` ``None`` for the whole list); empty when nothing is wrong.

        Raises nothing.
        """
        return []

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        """The list fixed: a new list, or ``messages`` itself when nothing changes. Every message the step
        makes (a merged turn, an added turn, a message changed) is also appended to ``made``: the message
        rules look at those again. ``at``: the indexes of the messages that triggered the step (a watched
        pair of neighbours ends there, or the message-level detection found something there), where it
        has its work if anywhere; ``None``: look at the whole list.

        Args:
            messages: the list to fix; never changed.
            cx: the profile being applied.
            made: where the step appends each message it makes or changes.
            at: the indexes where the step has its work, or ``None`` for the whole list.

        Returns:
            The fixed list, or ``messages`` itself when nothing changes.

        Raises nothing.
        """
        return messages

    def fix_in_place(self, m: Message, finding: Finding, run: Any) -> Message | None:
        """``fix``, changing ``m`` itself (and returning it), for a list nobody else holds (a fresh dump).
        Rules that fix many messages of a conversation (ids, a content for every call turn) have one.

        Args:
            m: the message to fix, changed in place.
            finding: what ``detect`` returned for it.
            run: this rule's state for the pass.

        Returns:
            ``m``, fixed; ``None`` for no change; or ``DROP``.

        Raises nothing.
        """
        return self.fix(m, finding, run)

    def describe_list(self, finding: Finding, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        """The lines ``check`` reports for a list-level finding.

        Args:
            finding: what ``detect_list`` returned.
            messages: the whole list.
            cx: the profile being applied.

        Returns:
            The notes to report, each a line of ``check``'s output.

        Raises nothing.
        """
        return ()

    # --- what the rule sends -------------------------------------------------------------------------

    def sends_keys(self, role: str) -> frozenset[str]:
        """Keys beyond the OpenAI core that this rule keeps or adds on messages of ``role`` (the
        ``unknown-key`` rule lets them through).

        Args:
            role: a message role (``"assistant"``, ``"tool"``, ...).

        Returns:
            The keys this rule sends on messages of ``role``.

        Raises nothing.
        """
        return frozenset()

    def sends_call_keys(self) -> frozenset[str]:
        """Keys beyond ``id``, ``type`` and ``function`` that this rule keeps on a tool call.

        Returns:
            The keys this rule keeps on a tool call.

        Raises nothing.
        """
        return frozenset()

    def bind(self, cx: Context) -> Rule:
        """This rule as compiled into the profile ``cx`` describes (for rules that depend on the others,
        such as which keys are known). Default: itself.

        Args:
            cx: the profile the rule is compiled into.

        Returns:
            The rule to run in that profile.

        Raises nothing.
        """
        return self

    def cited_rows(self) -> frozenset[int]:
        """The rows this rule reports under beside its own ``row``, where they depend on how it was
        compiled (the part screen's table). Default: none.

        Returns:
            The quirk rows cited beside ``row``.

        Raises nothing.
        """
        return frozenset()


# --- helpers the rules share --------------------------------------------------------------------------


def is_system(m: Mapping[str, Any]) -> bool:
    """Whether ``m`` is a system or developer message."""
    return m.get("role") in SYSTEM_ROLES


def is_text_part(part: Any) -> bool:
    """Whether ``part`` is a text part (``{"type": "text", ...}``)."""
    return isinstance(part, dict) and part.get("type") == "text"


def blank_text(text: Any, whitespace: bool) -> bool:
    """Whether a text says nothing: not a string, empty, or (with ``whitespace``) whitespace only."""
    if type(text) is not str:
        return True
    return not text or (whitespace and text.isspace())


def blank(content: Any, *, whitespace: bool = True) -> bool:
    """Whether a content carries nothing: ``None``, an empty (or, with ``whitespace``, a whitespace-only)
    string, or a list of such text parts only."""
    if content is None:
        return True
    if isinstance(content, str):
        return blank_text(content, whitespace)
    if isinstance(content, list):
        return all(is_text_part(p) and blank_text(p.get("text"), whitespace) for p in content)
    return False


def parts_of(content: Any) -> list[dict[str, Any]]:
    """The parts of a content given as a list (dicts only); ``[]`` for any other content. A list, not a
    generator: rules call it on every message with parts, and a short list is cheaper to make and walk."""
    if type(content) is list:
        return [p for p in content if type(p) is dict]
    if isinstance(content, list):  # a list subclass, as callers of Profile.apply may hand in
        return [p for p in content if isinstance(p, dict)]
    return []


def an(role: Any) -> str:
    """``"an assistant"``, ``"a user"``...: a role with its article, for the texts of violations."""
    return "an assistant" if role == "assistant" else f"a {role}"
