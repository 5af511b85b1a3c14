"""``Profile``: what one provider (or one model family) needs of an OpenAI-shape message list, as data.

Every field names one known difference between providers and documents its default, which is what the
OpenAI Chat Completions API itself does. ``apply`` reads each field in one place and calls one small pure
helper of ``messages.profiles.transforms``; ``check`` reports, for a list as it is, every place where the
provider (or litellm's route to it) would answer 400 or silently change the conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any, Literal

from messages.profiles import transforms as t
from messages.profiles._ids import IdRule
from messages.profiles.transforms import Fixer

__all__ = ["ALL_PARTS", "CORE_KEYS", "Profile", "Violation"]

ALL_PARTS = frozenset({"text", "image_url", "input_audio", "file"})
"""Every content part type of the OpenAI shape."""

CORE_KEYS: Mapping[str, frozenset[str]] = {
    "system": frozenset({"role", "content"}),
    "developer": frozenset({"role", "content"}),
    "user": frozenset({"role", "content"}),
    "assistant": frozenset({"role", "content", "tool_calls"}),
    "tool": frozenset({"role", "content", "tool_call_id"}),
}
"""The keys of each role that every OpenAI-shaped provider accepts."""

_CALL_KEYS = frozenset({"id", "type", "function"})

# The extension keys of messages.models, and where they live.
_EXTENSION_KEYS = frozenset(
    {"name", "reasoning_content", "thinking_blocks", "provider_specific_fields", "provider"}
)


@dataclass(frozen=True)
class Violation:
    """One place where a message list breaks a provider's rule."""

    index: int | None
    """The position of the offending message in the list checked, or ``None`` for the whole list."""
    rule: str
    """A short rule id (``"tool-call-id"``, ``"empty-text"``, ...)."""
    row: int | None
    """The row of provider-quirks.md the rule comes from."""
    message: str
    """What is wrong, where, and what the provider or litellm does with it."""
    fixable: bool = True
    """Whether ``Profile.apply`` fixes it; the others need the caller (a vision model, a real filename...)."""

    def __str__(self) -> str:
        where = "the conversation" if self.index is None else f"message {self.index}"
        source = f", provider-quirks.md row {self.row}" if self.row is not None else ""
        return f"{where}: {self.message} [{self.rule}{source}]"


@dataclass(frozen=True, kw_only=True)
class Profile:
    """What one provider, or one model family of it, needs done to an OpenAI-shape message list.

    Build one with keywords, or derive one with ``dataclasses.replace(profile, ...)``; register it with
    ``register_profile``. ``apply`` is pure and idempotent and keeps every non-empty text and every tool
    result; ``check`` lists what breaks the provider's rules.
    """

    provider: str
    """The litellm provider this profile is for (``"openai"``, ``"gemini"``, ``"bedrock"``...)."""
    family: str | None = None
    """The model-family rule this profile is for (a model-name prefix such as ``"o1-mini"``); ``None``:
    the provider's own profile."""
    is_default: bool = False
    """Whether this is the OpenAI-compatible default, given because no profile is registered for the
    provider. Default: False."""
    rows: Mapping[str, int] = field(default_factory=dict, hash=False)
    """The provider-quirks.md row each rule of this profile comes from, by rule id: what ``check`` cites."""

    # --- tool calls -----------------------------------------------------------------------------------
    tool_call_ids: IdRule = field(default_factory=IdRule)
    """The ids the provider accepts; others are rewritten, on the call and its result alike. Default: any
    id, with litellm's Gemini thought signature cut off as litellm does for every non-Gemini model."""
    supports_tools: bool = True
    """Whether the provider has tool calls at all. Set to False (Perplexity, row 61) to render tool
    exchanges as plain text. Default: True."""
    empty_arguments_as_object: bool = True
    """Whether calls made without arguments (``""``) are sent as ``"{}"`` (row 58). Default: True; OpenAI
    keeps the model's exact bytes."""
    decodes_arguments: bool = False
    """Whether litellm's route ``json.loads`` the arguments (Anthropic, Bedrock, Gemini, Ollama), so that
    arguments that are not a JSON object are lost or fail (row 58). Default: False."""
    splits_identical_calls: bool = False
    """Whether a turn that calls one tool twice with equal arguments is split into turns that each call it
    once, each followed by its results (``transforms.split_identical_calls``): litellm's Gemini route sends
    such calls as one ``functionCall`` part but every ``functionResponse`` (row 24). Default: False."""

    # --- keys and names -------------------------------------------------------------------------------
    rejects_unknown_keys: bool = True
    """Whether litellm sends the message dicts as they are to a provider that rejects keys it does not
    know (rows 33, 37, 60). False for routes that build a new request from known keys (Anthropic,
    Bedrock, Gemini, Ollama). Default: True."""
    extra_keys: Mapping[str, frozenset[str]] = field(default_factory=dict, hash=False)
    """Keys beyond the OpenAI core (``CORE_KEYS``) the provider accepts, by role. Default: none."""
    accepts_names_on: frozenset[str] = frozenset({"system", "developer", "user"})
    """The roles whose ``name`` is sent as is: the provider accepts it there, or litellm drops it itself.
    Default: system and user, as OpenAI (row 59: not on assistant turns; not on tool results)."""
    name_pattern: str | None = None
    """A regex for one character of a valid ``name``; names are rewritten to match (row 4). Default: none."""
    accepts_refusal: bool = False
    """Whether the provider knows an assistant's ``refusal`` key; otherwise it is folded into the text
    (row 5). Default: False."""
    accepts_reasoning_content: bool = False
    """Whether ``reasoning_content`` is sent back (DeepSeek thinking models, row 34); Groq and Mistral
    reject it (rows 33, 37). Default: False."""
    accepts_own_reasoning_content: bool = False
    """Whether ``reasoning_content`` is sent back when this provider produced it (the message's
    ``provider``, or none recorded), and dropped when another provider wrote it (DeepSeek, row 34: a
    ``deepseek-chat`` turn made in thinking mode must carry its reasoning back). Default: False."""
    requires_reasoning_content: bool = False
    """Whether every assistant turn must carry ``reasoning_content`` (row 34). Default: False."""
    accepts_thinking_blocks: bool = False
    """Whether signed ``thinking_blocks`` are sent back, to the provider that signed them only (rows 18,
    48). Default: False."""
    orders_thinking: bool = False
    """Whether thinking blocks must lead their turn and may not be in a final assistant turn (Anthropic,
    row 18): an assistant turn with thinking is merged into the assistant turn before it (litellm would
    merge them with the thinking after the first text), and a final assistant text sends none. Default:
    False."""
    accepts_provider_fields: bool = False
    """Whether ``provider_specific_fields`` (Gemini thought signatures) are sent back, to the provider
    that produced them only (rows 25, 56). Default: False."""

    # --- roles and order ------------------------------------------------------------------------------
    system_role: Literal["as_given", "system", "user"] = "as_given"
    """How system and developer messages are sent: as given; as ``system`` (``developer`` rejected, row 9);
    or as ``user`` (no system role: o1-mini, Gemma, rows 8 and 27). Default: as given."""
    accepts_late_system: bool = True
    """Whether system messages may come after the first user or assistant turn; otherwise they are sent as
    user messages (Perplexity, row 57). Default: True."""
    needs_text_system_content: bool = False
    """Whether system content must be a string, not parts (Groq, row 38). Default: False."""
    needs_alternation: bool = False
    """Whether user and assistant turns must alternate; consecutive ones are merged (rows 20, 53, 57).
    Default: False."""
    needs_assistant_after_tool_results: bool = False
    """Whether a user or system message may not follow tool results directly; an assistant turn saying
    ``bridge_text`` is put between them (Mistral, Bedrock, rows 31 and 44). Default: False."""
    needs_user_first: bool = False
    """Whether the first turn after the system messages must be a user turn, and one must exist (rows 19,
    24, 41); a user turn saying ``continue_text`` is added. Default: False."""
    supports_assistant_prefill: bool = True
    """Whether the conversation may end on an assistant text; otherwise a user turn saying
    ``continue_text`` is appended (rows 15, 47, 61). Default: True."""
    prefill_needs_prefix: bool = False
    """Whether a final assistant text must be marked ``prefix: true`` (Mistral, row 31). Default: False."""
    accepts_system_last: bool = True
    """Whether the conversation may end on a system message; otherwise a user turn saying
    ``continue_text`` follows it (Mistral, row 31). Default: True."""

    # --- content --------------------------------------------------------------------------------------
    empty_text: Literal["keep", "space", "drop"] = "keep"
    """What happens to a user or assistant turn with no text: kept; sent as ``" "`` (Gemini, row 23); or
    dropped (rows 13, 32, 40, 43), along with blank system messages for ``"space"`` and ``"drop"``.
    Default: kept."""
    whitespace_is_empty: bool = False
    """Whether whitespace-only text counts as empty (Anthropic, Bedrock: rows 13 and 43). Default: False."""
    call_turn_content: Literal["as_given", "null", "empty_string"] = "as_given"
    """The content of an assistant turn that only calls tools: as given, ``null`` (rows 13, 23, 32), or
    ``""`` (rows 40, 53). Default: as given."""
    needs_turn_content: bool = False
    """Whether an assistant turn with neither text nor tool calls (``content: null``, as an ``AIMessage``
    after a reasoning-only reply) is sent with content ``""`` (OpenAI, row 5; template servers, row 53).
    Default: False."""
    fills_empty_tool_results: bool = False
    """Whether an empty tool result is sent as ``empty_result_text`` (rows 31, 40, 43, 55). Default: False."""
    moves_tool_media: bool = False
    """Whether images, audio and files in tool results are moved to a user message after them (row 7).
    Default: False (litellm's OpenAI-shaped routes move images themselves)."""
    needs_text_tool_content: bool = False
    """Whether tool results made of text parts are sent as one string (row 54). Default: False."""
    needs_text_content: bool = False
    """Whether every content must reach the provider as one string (DeepSeek, row 36): text parts are
    joined, and a content holding parts the model does not take (``accepts_parts``) gets a text note
    saying so, as litellm then sends only its text. Default: False."""
    accepts_parts: frozenset[str] = ALL_PARTS
    """The content part types the provider (or litellm's route to it) takes; others are reported, not
    fixable: DeepSeek's text models take text only (litellm drops the rest silently, row 36), Azure no
    ``file`` (row 10), Claude no audio. Default: text, images, audio and files."""
    accepts_image_urls: bool = True
    """Whether images may be given by http(s) URL, not only inline (Ollama, row 51). Default: True."""

    # --- texts the profile adds -----------------------------------------------------------------------
    continue_text: str = t.CONTINUE_TEXT
    """The user turn added where one is needed (``needs_user_first``, ``supports_assistant_prefill``, and
    where dropping blank turns leaves none)."""
    bridge_text: str = t.BRIDGE_TEXT
    """The assistant turn put after tool results (``needs_assistant_after_tool_results``)."""
    empty_result_text: str = t.EMPTY_RESULT_TEXT
    """What an empty tool result says (``fills_empty_tool_results``)."""

    def __post_init__(self) -> None:
        if not self.provider:
            raise ValueError("a profile needs a provider name")
        unknown = set(self.extra_keys) - set(CORE_KEYS)
        if unknown:
            raise ValueError(
                f"extra_keys names unknown roles {sorted(unknown)}; roles are {sorted(CORE_KEYS)}"
            )

    @property
    def name(self) -> str:
        """``provider`` or ``provider:family``: how error messages and snapshots name the profile."""
        return self.provider if self.family is None else f"{self.provider}:{self.family}"

    def with_family(self, family: str, **changes: Any) -> Profile:
        """This profile for the models of ``family``, with ``changes`` (a model-family rule)."""
        return replace(self, family=family, **changes)

    def differences(self) -> dict[str, Any]:
        """The fields that differ from a plain ``Profile`` of the same provider (for snapshots and docs)."""
        base = Profile(provider=self.provider)
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != getattr(base, f.name)
        }

    @cached_property
    def message_keys(self) -> Mapping[str, frozenset[str]]:
        """The keys each role may carry when this profile is applied."""
        keys = {role: set(core) for role, core in CORE_KEYS.items()}
        for role in self.accepts_names_on:
            keys.setdefault(role, set()).add("name")
        if self.accepts_refusal:
            keys["assistant"].add("refusal")
        if self.accepts_reasoning_content or self.accepts_own_reasoning_content:
            keys["assistant"].add("reasoning_content")
        if self.accepts_thinking_blocks:
            keys["assistant"].add("thinking_blocks")
        if self.accepts_provider_fields:
            keys["assistant"].add("provider_specific_fields")
        if self.prefill_needs_prefix:
            keys["assistant"].add("prefix")
        for role, extra in self.extra_keys.items():
            keys[role] |= extra
        return {role: frozenset(names) for role, names in keys.items()}

    @cached_property
    def call_keys(self) -> frozenset[str]:
        """The keys a tool call may carry when this profile is applied."""
        return _CALL_KEYS | ({"provider_specific_fields"} if self.accepts_provider_fields else set())

    def apply(self, messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """``messages`` adjusted for this provider: a new list, the input untouched.

        Pure and idempotent (``apply(apply(x)) == apply(x)``); every user, assistant and tool text that is
        not blank, and every tool result, is still there (it may be re-encoded or moved). A message that
        needs no change is passed on as the same dict object.
        """
        return self._apply(messages, owned=False)

    def _apply_owned(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``apply`` for a list that nobody else holds (a fresh ``dump_messages`` list, whose dicts and
        lists share nothing with the messages): the same result, but a message that needs a new id, a
        ``reasoning_content`` or the content of a call turn is changed in place instead of copied."""
        return self._apply(messages, owned=True)

    def _apply(self, messages: Sequence[Mapping[str, Any]], *, owned: bool) -> list[dict[str, Any]]:
        given = messages  # without tools, the pass renders tool exchanges as text first
        # Ids the provider rejects get their new ids in the same pass, on the guess that none of the new
        # ids collides with another id (it has a hash of the old one in it); when one does, the pass runs
        # again without renaming (the ids it set in place put back first), and rewrite_tool_call_ids
        # settles the collisions.
        # Consecutive turns are merged in the pass too, unless media are to be moved out of tool results
        # (moved first, they may make turns consecutive that the pass did not see): then it runs again.
        # A pass that runs again finds done what the first one did in place (every fix is idempotent).
        merge = self.needs_alternation
        rename = self.supports_tools
        plan = self._plan
        undo: list[Any] | None = [] if owned else None
        result, renamed, facts = plan.fix_each(given, rename=rename, merge=merge, undo=undo)
        if facts.merged and facts.tool_parts and self.moves_tool_media:
            merge = False
            _put_back(undo)
            result, renamed, facts = plan.fix_each(given, rename=rename, merge=merge, undo=undo)
        if renamed is None:
            result, _, facts = plan.fix_each(given, rename=False, merge=merge, undo=undo)
            result = t.rewrite_tool_call_ids(result, self.tool_call_ids)
        return self._arrange(result, facts)

    def _arrange(self, result: list[dict[str, Any]], facts: _Facts) -> list[dict[str, Any]]:
        """The steps of ``apply`` that depend on a message's neighbours, in order; ``facts`` (gathered by
        the pass over the messages) let the steps with nothing to do be skipped."""
        shifted = facts.late_system and not self.accepts_late_system  # moved by the pass (as user turns)
        if self.moves_tool_media and facts.tool_parts:
            moved = t.move_tool_media(result)
            if len(moved) != len(result):
                shifted = True
                if self._plan.after_move:
                    moved = t.each(moved, *self._plan.after_move)
            result = moved
        if self.empty_text == "drop":
            result = t.ensure_a_turn(result, self.continue_text)
        if self.needs_alternation and (facts.same_roles or shifted):
            result = t.merge_consecutive_roles(result, then=self._plan.call_turn)
        elif self.orders_thinking and facts.thinking:  # without thinking there is nothing to merge
            result = t.merge_thinking_turns(result)
        if self.needs_assistant_after_tool_results and (facts.tool_then_user or shifted):
            result = t.bridge_tool_results(result, self.bridge_text)
            if self.requires_reasoning_content:  # the bridging turns need it too
                result = t.each(result, t.fill_reasoning_content())
        if self.splits_identical_calls and facts.repeats:
            result = t.split_identical_calls(result)
        if self.needs_user_first:
            result = t.ensure_user_first(result, self.continue_text)
        if not self.accepts_system_last:
            result = t.ensure_turn_after_system(result, self.continue_text)
        if self.prefill_needs_prefix:
            if facts.prefixed:
                result = t.mark_final_prefix(result)
            elif result and result[-1].get("role") == "assistant" and not result[-1].get("tool_calls"):
                result[-1] = {**result[-1], "prefix": True}  # as mark_final_prefix, with no other to unmark
        elif not self.supports_assistant_prefill:
            result = t.ensure_user_last(result, self.continue_text)
        if self.orders_thinking:
            result = t.drop_final_thinking(result)
        return result

    @cached_property
    def _plan(self) -> _Plan:
        return _Plan.of(self)

    def check(self, messages: Sequence[Mapping[str, Any]]) -> list[Violation]:
        """Every place where ``messages`` breaks this provider's rules, in message order.

        On a plain dump it says what litellm alone would send that the provider rejects or silently
        changes; on ``apply(messages)`` it comes back with only what ``apply`` cannot fix
        (``Violation.fixable`` is False for those).
        """
        from messages.profiles._rules import check

        return check(self, messages)


_ALL_ROLES = frozenset(CORE_KEYS)
_NO_KEYS: frozenset[str] = frozenset()


_PAYLOAD_KEYS = frozenset({"thinking_blocks", "provider_specific_fields"})
_FUNCTION_KEYS = frozenset({"name", "arguments"})


_SYSTEM_ROLES = frozenset({"system", "developer"})
_AFTER_TOOL = frozenset({"user", "system", "developer"})


def _put_back(undo: list[Any] | None) -> None:
    """Restore the ids ``fix_each`` set in place (``undo`` holds dict, key, old id for each), newest
    first, and forget them."""
    if undo:
        for index in range(len(undo) - 3, -1, -3):
            undo[index][undo[index + 1]] = undo[index + 2]
        undo.clear()


@dataclass(frozen=True)
class _Facts:
    """What one pass over the messages saw of their order, so that steps with nothing to do are skipped."""

    late_system: bool
    """A system message after the first other message."""
    tool_parts: bool
    """A tool result given as parts (which may hold media)."""
    same_roles: bool
    """Two user or two assistant turns in a row, left for ``merge_consecutive_roles``."""
    tool_then_user: bool
    """A tool result followed by a message that is neither a tool result nor an assistant turn."""
    thinking: bool
    """A message that kept its ``thinking_blocks`` (seen by every profile: the key always needs work)."""
    merged: bool
    """Consecutive turns merged by the pass."""
    prefixed: bool = False
    """A message that kept a ``prefix`` key (where the profile accepts one: see ``mark_final_prefix``)."""
    repeats: bool = False
    """A turn that calls one tool twice with equal arguments (where the profile splits such turns)."""


@dataclass(frozen=True)
class _Plan:
    """A profile's fields turned into the fixers ``apply`` runs, built once per profile.

    ``safe_keys`` and ``unsafe_keys`` are the fast path of ``Profile.apply``: a message whose keys need no
    fixing (most of them) skips the key fixers after one set comparison.
    """

    key_fixers: tuple[Fixer, ...]
    content_fixers: Mapping[str, tuple[tuple[Fixer, ...], tuple[Fixer, ...]]]
    """By role: the fixers for every message, and those for messages whose content is not a string with
    text (``None``, blank, or parts). Arguments ``""`` are fixed apart (see ``normalizes_arguments``)."""
    safe_keys: Mapping[str, frozenset[str]]
    """Keys that never need key work, by role (strict routes: a message's keys must all be in it)."""
    unsafe_keys: Mapping[str, frozenset[str]]
    """Keys that always need key work, by role (converting routes: a message must have none of them)."""
    strict: bool
    call_turn: Fixer | None
    after_move: tuple[Fixer, ...]
    """The content fixers a user or tool message made by ``move_tool_media`` needs."""
    drops_blank: bool
    drops_turns: bool
    whitespace: bool
    known_ids: Mapping[str, str]
    """The verdicts of the profile's id rule on the ids seen so far (``IdRule.verdicts``): ``""`` for an
    id it accepts, else the first new id it proposes."""
    judge_id: Callable[[str], str]
    """The verdict on an id not in ``known_ids`` (and noted there)."""
    new_id: Callable[[str], str]
    """The first new id the id rule proposes for an id it rejects (cached)."""
    accepts_any_id: bool
    """Whether the id rule accepts every id (Gemini), so that ids need no look."""
    fixes_none_content: bool
    """Whether a content fixer changes a ``None`` content (``call_turn_content="empty_string"``)."""
    fills_null_turns: bool
    """Whether an assistant turn with neither text nor calls gets content ``""`` (``needs_turn_content``)."""
    normalizes_arguments: bool
    """Whether arguments ``""`` are sent as ``"{}"``."""
    moves_late_system: bool
    """Whether system messages after the first other message are sent as user messages."""
    watches_order: bool
    """Whether a step after the pass needs to know what the pass saw of the order (``_Facts``)."""
    renders_tools: bool
    splits_identical_calls: bool
    """Whether tool calls and results are rendered as text first (``render_tool_exchanges_as_text``)."""
    always_roles: frozenset[str]
    """The roles with fixers for every message (``content_fixers``), not only for odd contents."""
    fills_reasoning: bool
    """Whether every assistant turn gets a ``reasoning_content`` (``fill_reasoning_content``)."""
    bridge: Mapping[str, Any] | None
    """The assistant turn the pass puts after tool results followed by a user or system message
    (``bridge_tool_results``), or ``None`` where it does not (no bridging, or turns merged after it)."""

    def fix_each(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        rename: bool,
        merge: bool = False,
        undo: list[Any] | None = None,
    ) -> tuple[list[dict[str, Any]], dict[str, str] | None, _Facts]:
        """One pass for everything that concerns one message at a time: its keys, its content and (with
        ``rename``) its tool-call ids; blank messages the profile drops are left out. With ``merge``, a
        user or assistant turn that follows one of its own role is merged into it, as
        ``transforms.merge_consecutive_roles`` does (then ``same_roles`` counts only the runs left). Where
        the profile bridges tool results (``bridge``), the assistant turn goes in here too, unless the
        results hold parts whose media may move out after them (then ``tool_then_user`` asks for
        ``transforms.bridge_tool_results``).

        With ``undo`` (for a list nobody else holds, see ``Profile._apply_owned``), new ids, a missing
        ``reasoning_content`` and the content of a call turn are set in place, and each id set is noted
        in ``undo`` (``_put_back`` restores them; done here when the renaming is given up).

        Returns the messages, the ids renamed (old to new), or ``None`` for the renaming when two new ids
        turned out equal to each other or to a kept id (the caller then renames without guessing), and
        what the pass saw of the order of the messages.
        Written for speed, as ``dump_messages(model=...)`` runs it on every call: most messages need
        nothing, and find that out in a few comparisons; a fixer runs only where it may have work.
        """
        strict, safe_keys, unsafe_keys = self.strict, self.safe_keys, self.unsafe_keys
        key_fixers, content_fixers = self.key_fixers, self.content_fixers
        drops_blank, drops_turns, whitespace = self.drops_blank, self.drops_turns, self.whitespace
        fixes_none, normalize = self.fixes_none_content, self.normalizes_arguments
        fills_turns = self.fills_null_turns
        moves_late_system, watches_order = self.moves_late_system, self.watches_order
        reasoning, bridge = self.fills_reasoning, self.bridge
        always_roles = self.always_roles
        rename = rename and not self.accepts_any_id
        known_id, judge_id = self.known_ids.get, self.judge_id
        new_id = self.new_id
        renamed: dict[str, str] = {}
        kept: set[str] = set()  # the ids accepted as they are, for the collision check at the end
        owned = undo is not None
        log: list[Any] = undo if undo is not None else []
        fixed: list[dict[str, Any]] = []
        append = fixed.append
        previous: Any = None
        started = late_system = tool_parts = same_roles = tool_then_user = thinking = merged = False
        prefixed = run_parts = repeats = False
        splits = self.splits_identical_calls
        made: Any = None  # the last message appended, where this pass made it (not one of ``messages``)
        call_turn = self.call_turn
        render = t.tool_turn_renderer() if self.renders_tools else None
        for given in messages:
            m: dict[str, Any] = given if type(given) is dict else dict(given)
            role: Any = m.get("role")
            content = m.get("content")
            if (
                len(m) == 2
                and type(content) is str
                and (role == "user" or role == "assistant")
                and (content.strip() if whitespace else content)
            ):
                # A user or assistant text and nothing else, the most common message: nothing to fix but
                # a missing reasoning_content (row 34, as transforms.fill_reasoning_content).
                plain_text, calls = True, None
                if reasoning and role == "assistant":
                    if owned:
                        m["reasoning_content"] = " "
                    else:
                        m = {**m, "reasoning_content": " "}
            elif (
                role == "tool"
                and len(m) == 3
                and render is None
                and type(content) is str
                and (content.strip() if whitespace else content)
                and "tool_call_id" in m
            ):
                plain_text, calls = True, None  # a tool result as text: nothing to fix but its id
            else:
                plain_text, calls = False, m.get("tool_calls")
            bad_ids = False
            if render is not None and (calls or role == "tool"):
                if (
                    merge
                    and role == "tool"
                    and previous == "user"
                    and (last := fixed[-1]) is made
                    and len(last) == 2
                    and type(a := last.get("content")) is str
                    and a
                    and (said := render.result_text(m)) is not None
                ):
                    # A result after a result (as a user turn made by this pass): merged at once.
                    last["content"] = f"{a}\n\n{said}"
                    merged = True
                    continue
                m = render(m)
                role, calls = m.get("role"), m.get("tool_calls")
                if (
                    len(m) == 2
                    and type(content := m.get("content")) is str
                    and (role == "user" or (role == "assistant" and not reasoning))
                ):
                    # A tool exchange as text (it always says something): nothing for the fixers to do.
                    plain_text = True
            if not plain_text:  # else straight to its place in the order
                if moves_late_system and started and role in _SYSTEM_ROLES:
                    m, role = {**m, "role": "user"}, "user"  # then fixed as the user message it now is
                    late_system = True
                if strict:
                    work = not m.keys() <= safe_keys.get(role, _NO_KEYS)
                else:
                    work = not unsafe_keys.get(role, _EXTENSION_KEYS).isdisjoint(m.keys())
                empty_arguments = bad_ids = False
                if calls:
                    # One look at every call: odd keys, arguments "", ids the provider rejects.
                    if type(calls) is not list:
                        work = True
                    else:
                        for c in calls:
                            if type(c) is not dict:
                                work = True
                                continue
                            call_id = c.get("id")
                            if rename and type(call_id) is str:
                                verdict = known_id(call_id)
                                if verdict is None:
                                    verdict = judge_id(call_id)
                                if not verdict:
                                    kept.add(call_id)
                                elif owned:  # the new id at once (fixers that copy the call keep it)
                                    c["id"] = renamed[call_id] = verdict
                                    log += (c, "id", call_id)
                                else:
                                    bad_ids = True
                            function = c.get("function")
                            if type(function) is not dict:
                                work = True
                                continue
                            if not c.keys() <= _CALL_KEYS or not function.keys() <= _FUNCTION_KEYS:
                                work = True
                            arguments = function.get("arguments")
                            if type(arguments) is str and not arguments.strip():
                                empty_arguments = True
                if work:
                    for fix in key_fixers:
                        new = fix(m)
                        if new is not None:
                            m = new
                    calls = m.get("tool_calls")
                    if "thinking_blocks" in m:
                        thinking = True
                    if "prefix" in m:
                        prefixed = True
                if empty_arguments and normalize:
                    m = t.normalize_empty_arguments(m) or m
                    calls = m.get("tool_calls")
                if splits and calls and not repeats and type(calls) is list and len(calls) > 1:
                    repeats = t.repeats_a_call(calls)
                if reasoning and role == "assistant" and not m.get("reasoning_content"):
                    # Row 34, as transforms.fill_reasoning_content.
                    if owned:
                        m["reasoning_content"] = " "
                    else:
                        m = {**m, "reasoning_content": " "}
                content = m.get("content")
                if content is None and role == "assistant" and (fixes_none if calls else fills_turns):
                    # A turn saying nothing: set_call_turn_content or send_null_turns_as_empty_text sends
                    # "", and no other content fixer has work on a null content.
                    if owned:
                        m["content"] = content = ""
                    else:
                        m = {**m, "content": ""}
                        content = ""
                elif (
                    type(content) is not str
                    or not (content.strip() if whitespace else content)
                    or role in always_roles
                ):
                    chains = content_fixers.get(role)
                    if chains is not None:
                        always, on_shape = chains
                        if always:
                            for fix in always:
                                new = fix(m)
                                if new is not None:
                                    m = new
                            role, content = m.get("role"), m.get("content")
                        # A string with text needs none of the content fixers (the common case); a
                        # null content, only set_call_turn_content and fill_blank_tool_results.
                        if on_shape and (
                            (fixes_none or role == "tool")
                            if content is None
                            else type(content) is not str or not (content.strip() if whitespace else content)
                        ):
                            for fix in on_shape:
                                new = fix(m)
                                if new is not None:
                                    m = new
                            content = m.get("content")
                if (
                    drops_blank
                    and not calls
                    and role != "tool"
                    and (type(content) is not str or not (content.strip() if whitespace else content))
                    and t.blank_message(m, whitespace=whitespace, turns=drops_turns)
                ):
                    continue
            if rename:  # for plain texts too: a tool result's id
                if bad_ids and calls:  # not with ``undo``: renamed in place above
                    renamed_calls = []
                    for c in calls:
                        call_id = c.get("id") if type(c) is dict else None
                        # Every id of this turn was looked at above: one not kept is one the rule
                        # rejects.
                        if type(call_id) is str and call_id not in kept:
                            new_call_id = renamed.get(call_id)
                            if new_call_id is None:
                                new_call_id = renamed[call_id] = new_id(call_id)
                            c = {**c, "id": new_call_id}
                        renamed_calls.append(c)
                    m = {**m, "tool_calls": renamed_calls}
                elif role == "tool" and type(call_id := m.get("tool_call_id")) is str:
                    new_call_id = renamed.get(call_id)
                    if new_call_id is None and call_id not in kept:
                        verdict = known_id(call_id)
                        if verdict is None:
                            verdict = judge_id(call_id)
                        if verdict:
                            new_call_id = renamed[call_id] = verdict
                        else:
                            kept.add(call_id)
                    if new_call_id is not None:
                        if owned:
                            m["tool_call_id"] = new_call_id
                            log += (m, "tool_call_id", call_id)
                        else:
                            m = {**m, "tool_call_id": new_call_id}
            if not watches_order:
                append(m)
                continue
            if role == previous:
                if role == "user" or role == "assistant":
                    if not merge:
                        same_roles = True
                    elif not (last := fixed[-1]).get("tool_calls"):  # a turn that calls tools is not
                        # merged into; two plain texts (the common case) as merge_two joins them.
                        a = last.get("content")
                        if (
                            len(last) == 2
                            and len(m) == 2
                            and type(a) is str
                            and type(content) is str
                            and a
                            and content
                        ):
                            if last is made:  # made by this pass: nobody else holds it
                                last["content"] = f"{a}\n\n{content}"
                            else:
                                fixed[-1] = made = {"role": role, "content": f"{a}\n\n{content}"}
                            merged = True
                            continue
                        both = t.merge_two(last, m)
                        fixed[-1] = made = (call_turn(both) or both) if call_turn is not None else both
                        merged = True
                        continue
            else:
                if previous == "tool":
                    if role != "assistant":
                        if bridge is not None and role in _AFTER_TOOL and not run_parts:
                            append(dict(bridge))
                        else:
                            tool_then_user = True
                    run_parts = False
                if role in _SYSTEM_ROLES:
                    late_system = late_system or started
                else:
                    started = True
                previous = role
            append(m)
            made = m if m is not given else None
            if type(content) is list and role == "tool":
                tool_parts = run_parts = True
        facts = _Facts(
            late_system, tool_parts, same_roles, tool_then_user, thinking, merged, prefixed, repeats
        )
        if renamed:
            new_ids = set(renamed.values())
            if len(new_ids) != len(renamed) or not new_ids.isdisjoint(kept):
                _put_back(undo)
                return fixed, None, facts
        return fixed, renamed, facts

    @classmethod
    def of(cls, p: Profile) -> _Plan:
        accepted = p.message_keys
        dropped = frozenset(k for k in _EXTENSION_KEYS - {"name"} if k not in accepted["assistant"]) | {
            "provider"
        }
        key_fixers: list[Fixer] = [
            t.drop_foreign_reasoning(
                p.provider,
                thinking_blocks=p.accepts_thinking_blocks,
                provider_fields=p.accepts_provider_fields,
                own_reasoning_content=p.accepts_own_reasoning_content and not p.accepts_reasoning_content,
            ),
            t.fold_refusal(keep_key=p.accepts_refusal),
            t.keep_known_keys(accepted, p.call_keys) if p.rejects_unknown_keys else t.drop_keys(dropped),
        ]
        if not p.accepts_names_on >= _ALL_ROLES:
            key_fixers.append(t.drop_names(p.accepts_names_on))
        if p.name_pattern is not None:
            key_fixers.append(t.sanitize_names(p.name_pattern))
        checked_names = frozenset({"name"}) if p.name_pattern is not None else frozenset()
        # Keys that send a message through the key fixers even where they are accepted.
        always = frozenset({"refusal", "provider"}) | _PAYLOAD_KEYS | checked_names
        if p.prefill_needs_prefix:
            always |= {"prefix"}  # noted by the pass, so that mark_final_prefix looks further only then
        if p.accepts_own_reasoning_content and not p.accepts_reasoning_content:
            always |= {"reasoning_content"}  # kept or dropped by where it came from
        safe = {role: keys - always for role, keys in accepted.items()}
        unsafe = {
            role: dropped | always | (frozenset({"name"}) if role not in p.accepts_names_on else frozenset())
            for role in accepted
        }

        turn: list[Fixer] = []  # the text of user and assistant turns
        if p.empty_text == "space":
            turn.append(t.space_empty_text)
        elif p.empty_text == "drop":
            turn.append(t.drop_blank_parts(whitespace=p.whitespace_is_empty))
        call_turn = (
            t.set_call_turn_content(p.call_turn_content, whitespace=p.whitespace_is_empty)
            if p.call_turn_content != "as_given"
            else None
        )
        system: list[Fixer] = []
        system_shape: list[Fixer] = []
        if p.system_role != "as_given":
            system.append(t.set_system_role(p.system_role))
        if p.system_role == "user":
            system_shape.extend(turn)  # sent as user turns, so shaped as they are
        elif p.empty_text == "drop":
            # Rows 13, 43: a blank text block is rejected in ``system`` too, and a system message half-way
            # reaches Anthropic as a user turn with litellm's placeholder text for each blank part.
            system_shape.append(t.drop_blank_parts(whitespace=p.whitespace_is_empty))
        # DeepSeek (row 36): every content as one string, with a note where the model is not shown parts.
        as_text: list[Fixer] = (
            [t.note_unseen_parts(p.accepts_parts), t.flatten_text_content(_ALL_ROLES)]
            if p.needs_text_content
            else []
        )
        if p.needs_text_system_content and not p.needs_text_content:
            system_shape.append(t.flatten_text_content(("system", "developer")))
        system_shape.extend(as_text)
        turn.extend(as_text)
        assistant = [*turn, *([call_turn] if call_turn is not None else [])]
        tool: list[Fixer] = []
        if p.fills_empty_tool_results:
            tool.append(t.fill_blank_tool_results(p.empty_result_text, whitespace=p.whitespace_is_empty))
        if p.needs_text_tool_content and not p.needs_text_content:
            tool.append(t.flatten_text_content(("tool",)))
        # Media in tool results are moved first where the profile moves them; the note goes with them.
        tool.extend(as_text[1:] if p.moves_tool_media else as_text)
        after_move = tuple(as_text) or (
            (t.flatten_text_content(("tool",)),) if p.needs_text_tool_content else ()
        )
        return cls(
            always_roles=frozenset(("system", "developer") if system else ()),
            key_fixers=tuple(key_fixers),
            content_fixers={
                role: chains
                for role, chains in {
                    "system": (tuple(system), tuple(system_shape)),
                    "developer": (tuple(system), tuple(system_shape)),
                    "user": ((), tuple(turn)),
                    "assistant": ((), tuple(assistant)),
                    "tool": ((), tuple(tool)),
                }.items()
                if any(chains)
            },
            safe_keys=safe,
            unsafe_keys=unsafe,
            strict=p.rejects_unknown_keys,
            call_turn=call_turn,
            after_move=after_move,
            drops_blank=p.empty_text != "keep",
            drops_turns=p.empty_text == "drop",
            whitespace=p.whitespace_is_empty,
            known_ids=p.tool_call_ids.verdicts()[0],
            judge_id=p.tool_call_ids.verdicts()[1],
            new_id=p.tool_call_ids.first_rewriter(),
            accepts_any_id=p.tool_call_ids == IdRule(keeps_signatures=True),
            fixes_none_content=p.call_turn_content == "empty_string",
            fills_null_turns=p.needs_turn_content,
            normalizes_arguments=p.empty_arguments_as_object,
            moves_late_system=not p.accepts_late_system,
            renders_tools=not p.supports_tools,
            splits_identical_calls=p.splits_identical_calls,
            fills_reasoning=p.requires_reasoning_content,
            bridge=(
                {
                    "role": "assistant",
                    "content": p.bridge_text,
                    **({"reasoning_content": " "} if p.requires_reasoning_content else {}),
                }
                if p.needs_assistant_after_tool_results and not p.needs_alternation
                else None
            ),
            watches_order=not p.accepts_late_system
            or p.moves_tool_media
            or p.needs_alternation
            or p.needs_assistant_after_tool_results,
        )
