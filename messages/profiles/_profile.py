"""``Profile``: what one provider (or one model family) needs of an OpenAI-shape message list, as data.

Every field names one known difference between providers and documents its default, which is what the
OpenAI Chat Completions API itself does. ``apply`` reads each field in one place and calls one small pure
helper of ``messages.profiles.transforms``; ``check`` reports, for a list as it is, every place where the
provider (or litellm's route to it) would answer 400 or silently change the conversation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any, Literal

from messages.profiles import transforms as t
from messages.profiles._ids import IdRule

__all__ = ["CORE_KEYS", "Profile", "Violation"]

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
    requires_reasoning_content: bool = False
    """Whether every assistant turn must carry ``reasoning_content`` (row 34). Default: False."""
    accepts_thinking_blocks: bool = False
    """Whether signed ``thinking_blocks`` are sent back, to the provider that signed them only (rows 18,
    48). Default: False."""
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
    fills_empty_tool_results: bool = False
    """Whether an empty tool result is sent as ``empty_result_text`` (rows 31, 40, 43, 55). Default: False."""
    moves_tool_media: bool = False
    """Whether images, audio and files in tool results are moved to a user message after them (row 7).
    Default: False (litellm's OpenAI-shaped routes move images themselves)."""
    needs_text_tool_content: bool = False
    """Whether tool results made of text parts are sent as one string (row 54). Default: False."""
    accepts_images: bool = True
    """Whether the provider takes images at all (DeepSeek text models, row 36). Default: True."""
    accepts_image_urls: bool = True
    """Whether images may be given by http(s) URL, not only inline (Ollama, row 51). Default: True."""
    accepts_files: bool = True
    """Whether the provider takes ``file`` parts in chat messages (Azure, row 10). Default: True."""

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
        if self.accepts_reasoning_content:
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
        out: list[dict[str, Any]] = [m if isinstance(m, dict) else dict(m) for m in messages]
        out = t.drop_foreign_reasoning(
            out,
            self.provider,
            thinking_blocks=self.accepts_thinking_blocks,
            provider_fields=self.accepts_provider_fields,
        )
        out = t.fold_refusal(out, keep_key=self.accepts_refusal)
        if self.rejects_unknown_keys:
            out = t.keep_known_keys(out, self.message_keys, self.call_keys)
        else:
            out = t.drop_keys(out, self._dropped_extensions)
        out = t.drop_names(out, self.accepts_names_on)
        if self.name_pattern is not None:
            out = t.sanitize_names(out, self.name_pattern)
        if self.empty_arguments_as_object:
            out = t.normalize_empty_arguments(out)
        if self.supports_tools:
            out = t.rewrite_tool_call_ids(out, self.tool_call_ids)
        else:
            out = t.render_tool_exchanges_as_text(out)
        if self.system_role != "as_given":
            out = t.set_system_role(out, self.system_role)
        if not self.accepts_late_system:
            out = t.move_late_system_messages(out)
        if self.needs_text_system_content:
            out = t.flatten_text_content(out, ("system", "developer"))
        if self.moves_tool_media:
            out = t.move_tool_media(out)
        if self.needs_text_tool_content:
            out = t.flatten_text_content(out, ("tool",))
        if self.empty_text != "keep":
            out = t.drop_blank_system_messages(out, whitespace=self.whitespace_is_empty)
        if self.empty_text == "drop":
            out = t.drop_blank_text(out, whitespace=self.whitespace_is_empty)
            out = t.ensure_a_turn(out, self.continue_text)
        elif self.empty_text == "space":
            out = t.space_empty_text(out)
        if self.fills_empty_tool_results:
            out = t.fill_blank_tool_results(out, self.empty_result_text, whitespace=self.whitespace_is_empty)
        if self.needs_alternation:
            out = t.merge_consecutive_roles(out)
        if self.call_turn_content != "as_given":
            out = t.set_call_turn_content(out, self.call_turn_content, whitespace=self.whitespace_is_empty)
        if self.needs_assistant_after_tool_results:
            out = t.bridge_tool_results(out, self.bridge_text)
        if self.needs_user_first:
            out = t.ensure_user_first(out, self.continue_text)
        if self.prefill_needs_prefix:
            out = t.mark_final_prefix(out)
        elif not self.supports_assistant_prefill:
            out = t.ensure_user_last(out, self.continue_text)
        if self.requires_reasoning_content:
            out = t.fill_reasoning_content(out)
        return out

    @cached_property
    def _dropped_extensions(self) -> frozenset[str]:
        # Converting routes ignore unknown keys, but read these extension keys when present.
        kept = self.message_keys["assistant"]
        return frozenset(k for k in _EXTENSION_KEYS - {"name"} if k not in kept) | {"provider"}

    def check(self, messages: Sequence[Mapping[str, Any]]) -> list[Violation]:
        """Every place where ``messages`` breaks this provider's rules, in message order.

        On a plain dump it says what litellm alone would send that the provider rejects or silently
        changes; on ``apply(messages)`` it comes back with only what ``apply`` cannot fix
        (``Violation.fixable`` is False for those).
        """
        from messages.profiles._rules import check

        return check(self, messages)
