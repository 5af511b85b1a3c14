"""The rules ``Profile.check`` applies: each one a predicate over an OpenAI-shape list, read independently of
the transforms that fix it.

A rule looks at the list as litellm receives it and models what litellm's route does before the provider
sees it (litellm strips keys whose value is ``None``, cuts Gemini thought signatures off tool-call ids for
every non-Gemini model): a violation is something the provider rejects, or that litellm silently changes.

Rule ids, and the row each one cites unless the profile's ``rows`` names a more specific one:

==========================  =============================================================================
rule                        what breaks
==========================  =============================================================================
``empty-conversation``      no messages at all (row 12)
``tool-call-id``            an id the provider rejects, as litellm sends it
``duplicate-tool-call-id``  two calls sent with one id (row 17), e.g. after litellm cut their signatures
``unknown-key``             a key a strict provider rejects
``name``                    a ``name`` where the provider rejects it, or one breaking its pattern
``refusal``                 a refusal that would not reach the model as text (row 5)
``foreign-reasoning``       a signed reasoning payload the provider did not sign
``empty-arguments``         tool-call arguments ``""`` that litellm's route ``json.loads`` (row 58)
``invalid-arguments``       arguments that are not a JSON object, on such a route (row 58; not fixable)
``identical-calls``         two calls of one tool with equal arguments in one turn, sent as one call
``system-role``             a system or developer message the model does not take in that role
``late-system``             a system message after the conversation started
``system-content``          system content given as parts where a string is needed
``tool-media``              an image, audio or file in a tool result
``tool-content``            a tool result given as parts where a string is needed
``text-content``            content given as parts that litellm's route cannot make the string needed
``empty-text``              a blank turn or text part
``call-turn-text``          the wrong content beside tool calls (null or ``""``)
``null-content``            an assistant turn with neither text nor tool calls sent as ``content: null``
``empty-tool-result``       a blank tool result
``consecutive-roles``       two user or two assistant turns in a row
``thinking-order``          an assistant turn with thinking right after another (merged: thinking last)
``final-thinking``          thinking blocks on a final assistant text
``system-last``             the conversation ends on a system message
``tool-then-user``          a user or system message right after tool results
``first-turn``              no user turn first (or none at all)
``prefill``                 the conversation ends on an assistant text
``prefix``                  a final assistant text not marked ``prefix: true`` (or a stale mark)
``reasoning-missing``       an assistant turn without ``reasoning_content``
``tools-unsupported``       tool calls or results for a provider without tools
``unsupported-part``        an image, audio or file part the model does not take (not fixable)
``image-url``               an image by URL where only inline images work (not fixable)
==========================  =============================================================================
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from messages.profiles._ids import SIGNATURE_SEPARATOR
from messages.profiles.transforms import blank, identical_call_groups, is_system

if TYPE_CHECKING:
    from messages.profiles._profile import Profile, Violation

__all__ = ["GENERAL_ROWS", "check"]

GENERAL_ROWS: Mapping[str, int] = {
    "empty-conversation": 12,
    "duplicate-tool-call-id": 17,
    "refusal": 5,
    "name": 4,
    "empty-arguments": 58,
    "invalid-arguments": 58,
}
"""Rows of the rules that are the same for every provider; the rest come from each profile's ``rows``."""

Message = Mapping[str, Any]


class _Report:
    """Collects violations for one profile, each citing its row."""

    def __init__(self, profile: Profile) -> None:
        from messages.profiles._profile import Violation

        self.profile = profile
        self.found: list[Violation] = []
        self._violation = Violation

    def add(self, index: int | None, rule: str, message: str, *, fixable: bool = True) -> None:
        row = self.profile.rows.get(rule, GENERAL_ROWS.get(rule))
        self.found.append(self._violation(index, rule, row, message, fixable))


def _sent(value: Any) -> bool:
    """Whether litellm sends a key with this value (it strips keys whose value is ``None``)."""
    return value is not None


def _a(role: str) -> str:
    return "an assistant" if role == "assistant" else f"a {role}"


def _parts(content: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(content, list):
        yield from (p for p in content if isinstance(p, Mapping))


def _has_blank_part(content: Any, profile: Profile) -> bool:
    """Whether ``content`` is a list holding a text part that is blank for ``profile``."""
    return any(
        p.get("type") == "text" and blank(p.get("text"), whitespace=profile.whitespace_is_empty)
        for p in _parts(content)
    )


def check(profile: Profile, messages: Sequence[Message]) -> list[Violation]:
    """The violations of ``messages`` against ``profile``, in message order."""
    report = _Report(profile)
    if not messages:
        report.add(
            None,
            "empty-conversation",
            "the conversation is empty; every provider rejects an empty list",
            fixable=False,
        )
        return report.found
    if profile.supports_tools:
        _tool_call_ids(report, messages)
    else:
        _no_tools(report, messages)
    for index, m in enumerate(messages):
        _keys(report, index, m)
        _arguments(report, index, m)
        _identical_calls(report, index, m)
        _system(report, index, m)
        _content(report, index, m)
    _order(report, messages)
    return sorted(report.found, key=lambda v: -1 if v.index is None else v.index)


# --- tool calls --------------------------------------------------------------------------------------


def _tool_call_ids(report: _Report, messages: Sequence[Message]) -> None:
    rule = report.profile.tool_call_ids
    provider = report.profile.provider
    first_call: dict[str, tuple[str, int]] = {}  # sent id -> (original id, message index)
    for index, m in enumerate(messages):
        ids: list[str] = []
        calls = m.get("tool_calls")
        if isinstance(calls, list):
            ids.extend(c["id"] for c in calls if isinstance(c, Mapping) and isinstance(c.get("id"), str))
        if isinstance(m.get("tool_call_id"), str):
            ids.append(m["tool_call_id"])
        for call_id in ids:
            sent = rule.sent_as(call_id)
            if not rule.fits(sent):
                how = f" (litellm sends it as {sent!r})" if sent != call_id else ""
                report.add(
                    index,
                    "tool-call-id",
                    f"tool-call id {call_id!r}{how} breaks {provider}'s id rule ({rule.describe()})",
                )
        if not isinstance(calls, list):
            continue
        for c in calls:
            own = c.get("id") if isinstance(c, Mapping) else None
            if not isinstance(own, str):
                continue
            sent = rule.sent_as(own)
            if sent not in first_call:
                first_call[sent] = (own, index)
                continue
            original, where = first_call[sent]
            if original == own:
                report.add(
                    index,
                    "duplicate-tool-call-id",
                    f"tool-call id {own!r} was already used by a call in message {where}; ids must be "
                    "unique (use repair_conversation())",
                    fixable=False,
                )
            else:
                report.add(
                    index,
                    "duplicate-tool-call-id",
                    f"tool-call ids {original!r} (message {where}) and {own!r} both reach {provider} as "
                    f"{sent!r}: litellm cuts the Gemini thought signature ({SIGNATURE_SEPARATOR}...) off ids "
                    "for every model but Gemini",
                )


def _no_tools(report: _Report, messages: Sequence[Message]) -> None:
    for index, m in enumerate(messages):
        if m.get("role") == "tool" or m.get("tool_calls"):
            what = "a tool result" if m.get("role") == "tool" else "tool calls"
            report.add(
                index,
                "tools-unsupported",
                f"{report.profile.provider} has no tool calls, and rejects {what} in the history",
            )


def _arguments(report: _Report, index: int, m: Message) -> None:
    calls = m.get("tool_calls")
    if not isinstance(calls, list) or not report.profile.supports_tools:
        return
    for c in calls:
        function = c.get("function") if isinstance(c, Mapping) else None
        arguments = function.get("arguments") if isinstance(function, Mapping) else None
        if not isinstance(arguments, str):
            continue
        call_id = c.get("id")
        if not arguments.strip():
            if report.profile.empty_arguments_as_object:
                report.add(
                    index,
                    "empty-arguments",
                    f"tool call {call_id!r} has arguments {arguments!r}; converters that json.loads them "
                    "fail on it (send '{}')",
                )
            continue
        if report.profile.decodes_arguments:
            try:
                decoded = json.loads(arguments)
            except ValueError:
                decoded = None
            if not isinstance(decoded, dict):
                report.add(
                    index,
                    "invalid-arguments",
                    f"tool call {call_id!r} has arguments that are not a JSON object ({arguments[:40]!r}); "
                    f"litellm's route to {report.profile.provider} decodes them, and fails or sends {{}}",
                    fixable=False,
                )


def _identical_calls(report: _Report, index: int, m: Message) -> None:
    calls = m.get("tool_calls")
    if not report.profile.splits_identical_calls or not isinstance(calls, list) or len(calls) < 2:
        return
    groups = identical_call_groups(calls)
    if len(groups) == 1:
        return
    repeated = [calls[i].get("id") for group in groups[1:] for i in group if isinstance(calls[i], Mapping)]
    report.add(
        index,
        "identical-calls",
        f"tool calls {repeated!r} repeat an earlier call of this turn (same tool, equal arguments): "
        f"litellm's {report.profile.provider} route sends them as one call but sends every result, and the "
        "provider rejects more results than calls",
    )


# --- keys --------------------------------------------------------------------------------------------

_PAYLOADS = ("thinking_blocks", "provider_specific_fields")
_HANDLED = frozenset({"name", "refusal"})  # reported by their own rules


def _keys(report: _Report, index: int, m: Message) -> None:
    profile = report.profile
    role = m.get("role")
    if not isinstance(role, str):
        return
    name = m.get("name")
    if _sent(name) and role not in profile.accepts_names_on:
        report.add(index, "name", f"{profile.provider} rejects `name` on {_a(role)} message")
    elif isinstance(name, str) and profile.name_pattern is not None:
        import re

        char = re.compile(profile.name_pattern)
        if not (0 < len(name) <= 64 and all(char.fullmatch(c) for c in name)):
            report.add(index, "name", f"name {name!r} breaks {profile.provider}'s name pattern")
    if role == "assistant":
        _refusal(report, index, m)
        _reasoning(report, index, m)
    if not profile.rejects_unknown_keys:
        return
    allowed = profile.message_keys.get(role)
    if allowed is None:
        return
    unknown = sorted(k for k, v in m.items() if _sent(v) and k not in allowed and k not in _HANDLED)
    calls = m.get("tool_calls")
    if isinstance(calls, list):
        for c in calls:
            if not isinstance(c, Mapping):
                continue
            unknown.extend(
                f"tool_calls[].{k}" for k, v in c.items() if _sent(v) and k not in profile.call_keys
            )
            function = c.get("function")
            if isinstance(function, Mapping):
                unknown.extend(
                    f"tool_calls[].function.{k}" for k in function if k not in ("name", "arguments")
                )
    if unknown:
        keys = ", ".join(dict.fromkeys(unknown))
        report.add(
            index, "unknown-key", f"{profile.provider} rejects unknown keys on {_a(role)} message: {keys}"
        )


def _refusal(report: _Report, index: int, m: Message) -> None:
    refusal = m.get("refusal")
    if not _sent(refusal):
        return
    content = m.get("content")
    silent = blank(content, whitespace=False) and not m.get("tool_calls")
    if report.profile.accepts_refusal:
        if silent and isinstance(refusal, str) and refusal:  # an empty refusal has nothing to send
            report.add(
                index,
                "refusal",
                "a refusal with no content: OpenAI allows content null only beside "
                "tool calls (send the refusal as the content too)",
            )
    elif report.profile.rejects_unknown_keys:
        report.add(index, "refusal", f"{report.profile.provider} rejects the `refusal` key (send it as text)")
    elif silent:
        report.add(
            index,
            "refusal",
            f"litellm's {report.profile.provider} route ignores `refusal`: this turn "
            "reaches the model with no text (send the refusal as the content)",
        )


def _reasoning(report: _Report, index: int, m: Message) -> None:
    profile = report.profile
    origin = m.get("provider")
    kinds = [k for k in _PAYLOADS if _sent(m.get(k))]
    calls = m.get("tool_calls")
    if isinstance(calls, list) and any(
        isinstance(c, Mapping) and _sent(c.get("provider_specific_fields")) for c in calls
    ):
        kinds.append("tool_calls[].provider_specific_fields")
    own_only = profile.accepts_own_reasoning_content and not profile.accepts_reasoning_content
    if own_only and _sent(m.get("reasoning_content")) and origin is not None and origin != profile.provider:
        report.add(
            index,
            "foreign-reasoning",
            f"reasoning_content written by {origin}: {profile.provider} takes back only its own reasoning",
        )
    for kind in kinds:
        accepted = (
            profile.accepts_thinking_blocks if kind == "thinking_blocks" else profile.accepts_provider_fields
        )
        if accepted and origin is not None and origin != profile.provider:
            report.add(
                index,
                "foreign-reasoning",
                f"{kind} were signed by {origin}; {profile.provider} rejects another provider's signatures",
            )
        # Not accepted: a strict route rejects the key (reported as an unknown key by _keys), and a
        # converting route builds its request without it.


# --- system messages ---------------------------------------------------------------------------------


def _system(report: _Report, index: int, m: Message) -> None:
    if not is_system(m):
        return
    profile = report.profile
    role = m.get("role")
    if profile.system_role == "user":
        report.add(
            index, "system-role", f"this model has no {role} role (send the instructions as a user message)"
        )
    elif profile.system_role == "system" and role == "developer":
        report.add(index, "system-role", f"{profile.provider} rejects the developer role (send it as system)")
    if profile.needs_text_system_content and isinstance(m.get("content"), list):
        media = [
            p.get("type") if isinstance(p, Mapping) else type(p).__name__
            for p in m["content"]
            if not (isinstance(p, Mapping) and p.get("type") == "text")
        ]
        report.add(
            index,
            "system-content",
            f"{profile.provider} takes system content as a string, not parts"
            + (f" (and no {', '.join(map(str, media))} parts: describe them in text)" if media else ""),
            fixable=not media,
        )
    content = m.get("content")
    if profile.empty_text != "keep" and blank(content, whitespace=profile.whitespace_is_empty):
        report.add(
            index, "empty-text", f"a system message with no text: {profile.provider} rejects empty text"
        )
    elif profile.empty_text == "drop" and _has_blank_part(content, profile):
        report.add(
            index,
            "empty-text",
            f"a blank text part in a system message: {profile.provider} rejects a blank text block, and "
            "litellm sends its own placeholder text for one in a system message half-way",
        )


# --- content -----------------------------------------------------------------------------------------


def _content(report: _Report, index: int, m: Message) -> None:
    profile = report.profile
    role = m.get("role")
    content = m.get("content")
    whitespace = profile.whitespace_is_empty
    parts = list(_parts(content))
    if role == "tool":
        if profile.moves_tool_media and any(p.get("type") != "text" for p in parts):
            report.add(
                index,
                "tool-media",
                f"{profile.provider} takes only text in a tool result; its "
                "images, audio or files are rejected or ignored there",
            )
        if profile.needs_text_tool_content and isinstance(content, list):
            report.add(
                index,
                "tool-content",
                f"{profile.provider} may garble a tool result given as parts (send a string)",
            )
        if profile.fills_empty_tool_results and (
            blank(content, whitespace=whitespace)
            or any(p.get("type") == "text" and blank(p.get("text"), whitespace=whitespace) for p in parts)
        ):
            report.add(
                index,
                "empty-tool-result",
                f"an empty tool result: {profile.provider} rejects it, or litellm "
                "drops or rewrites it (send some text, such as '(no output)')",
            )
    elif role in ("user", "assistant"):
        calls = m.get("tool_calls") if role == "assistant" else None
        if calls:
            _call_turn(report, index, content)
        elif profile.needs_turn_content and role == "assistant" and content is None:
            report.add(
                index,
                "null-content",
                f"an assistant turn with no text and no tool calls: {profile.provider} rejects content "
                "null there (send '')",
            )
        elif profile.empty_text == "drop" and not (role == "assistant" and _sent(m.get("refusal"))):
            if blank(content, whitespace=whitespace):
                report.add(
                    index, "empty-text", f"{_a(role)} turn with no text: {_empty_text_effect(profile)}"
                )
            elif any(p.get("type") == "text" and blank(p.get("text"), whitespace=whitespace) for p in parts):
                report.add(index, "empty-text", f"an empty text part: {_empty_text_effect(profile)}")
        elif profile.empty_text == "space" and (
            content == ""
            or content == []
            or any(p.get("type") == "text" and p.get("text") == "" for p in parts)
        ):
            report.add(index, "empty-text", f"empty text: {profile.provider} rejects an empty text part")
    if profile.needs_text_content and isinstance(content, list):
        _text_content(report, index, parts)
    unsupported = sorted({str(p.get("type")) for p in parts} - profile.accepts_parts)
    if unsupported:
        report.add(
            index,
            "unsupported-part",
            f"{profile.provider} (this model) takes no {', '.join(unsupported)} parts; litellm drops them or "
            "the provider rejects them: use a model that takes them, or describe them in text",
            fixable=False,
        )
    if not profile.accepts_image_urls:
        for p in parts:
            image = p.get("image_url") if p.get("type") == "image_url" else None
            url = image.get("url") if isinstance(image, Mapping) else image
            if isinstance(url, str) and not url.startswith("data:"):
                report.add(
                    index,
                    "image-url",
                    f"{profile.provider} takes images inline only (base64), not by URL ({url[:40]}): "
                    "download it and send an ImagePart.from_bytes",
                    fixable=False,
                )


def _text_content(report: _Report, index: int, parts: list[Mapping[str, Any]]) -> None:
    """Content given as parts on a route that needs a string (DeepSeek, row 36). litellm joins the text
    parts that have text with nothing between them, and leaves a content with no such part a list (no
    parts, only empty ones, or only images, which a vision model takes in a user turn)."""
    profile = report.profile
    said = sum(1 for p in parts if p.get("type") == "text" and isinstance(p.get("text"), str) and p["text"])
    only_text = all(p.get("type") == "text" for p in parts)
    if only_text and said > 1:
        problem = "text parts: litellm joins their text with nothing between them"
    elif said:
        return
    elif only_text:
        problem = "no text: litellm leaves it a list"
    elif any(p.get("type") not in profile.accepts_parts for p in parts):
        problem = "no text beside parts the model does not take: litellm leaves it a list"
    else:
        return
    report.add(
        index, "text-content", f"content given as {problem}, and {profile.provider} takes a string only"
    )


def _empty_text_effect(profile: Profile) -> str:
    if profile.rejects_unknown_keys:
        return f"{profile.provider} rejects it, or litellm drops it"
    return f"{profile.provider} rejects it, or litellm replaces it with its own placeholder text"


def _call_turn(report: _Report, index: int, content: Any) -> None:
    profile = report.profile
    if (
        profile.call_turn_content != "as_given"
        and not blank(content, whitespace=profile.whitespace_is_empty)
        and _has_blank_part(content, profile)
    ):
        report.add(
            index,
            "call-turn-text",
            f"an empty text part beside tool calls: {profile.provider} rejects an empty text part, or "
            "litellm turns it into text of its own (leave it out)",
        )
    if profile.call_turn_content == "null":
        if content is not None and blank(content, whitespace=profile.whitespace_is_empty):
            report.add(
                index,
                "call-turn-text",
                f"a tool-call turn with empty text {content!r}: {profile.provider} rejects empty text beside "
                "tool calls, or litellm turns it into text of its own (send null)",
            )
    elif profile.call_turn_content == "empty_string" and content is None:
        report.add(
            index,
            "call-turn-text",
            f'a tool-call turn with no content: {profile.provider} needs a content (send "")',
        )


# --- order -------------------------------------------------------------------------------------------


def _order(report: _Report, messages: Sequence[Message]) -> None:
    profile = report.profile
    started = False
    first_turn: int | None = None
    for index, m in enumerate(messages):
        previous = messages[index - 1] if index else None
        if is_system(m):
            if started and not profile.accepts_late_system:
                report.add(
                    index,
                    "late-system",
                    f"{profile.provider} takes system messages only before the first user or assistant turn",
                )
        elif not started:
            started = True
            first_turn = index
        role = m.get("role")
        if (
            profile.needs_alternation
            and previous is not None
            and role in ("user", "assistant")
            and previous.get("role") == role
            and not previous.get("tool_calls")
        ):
            report.add(
                index,
                "consecutive-roles",
                f"two {role} turns in a row: {profile.provider} needs user and assistant turns to alternate",
            )
        if (
            profile.needs_assistant_after_tool_results
            and previous is not None
            and previous.get("role") == "tool"
            and (role == "user" or is_system(m))
        ):
            report.add(
                index,
                "tool-then-user",
                f"{_a(str(role))} message right after tool results: "
                f"{profile.provider} needs an assistant turn in between",
            )
        if profile.requires_reasoning_content and role == "assistant" and not m.get("reasoning_content"):
            report.add(
                index,
                "reasoning-missing",
                f"an assistant turn without reasoning_content: "
                f"{profile.provider}'s thinking models answer 400 (send it back, or ' ')",
            )
        if profile.prefill_needs_prefix and "prefix" in m and index != len(messages) - 1:
            report.add(index, "prefix", "`prefix` marks a message that is not the last one")
        if (
            profile.orders_thinking
            and role == "assistant"
            and m.get("thinking_blocks")
            and previous is not None
            and previous.get("role") == "assistant"
            and not previous.get("tool_calls")
        ):
            report.add(
                index,
                "thinking-order",
                "an assistant turn with thinking blocks right after another assistant turn: litellm merges "
                f"them, and {profile.provider} rejects thinking after the first turn's text",
            )
    if profile.needs_user_first:
        if first_turn is None:
            report.add(None, "first-turn", f"no user or assistant turn: {profile.provider} needs a user turn")
        elif messages[first_turn].get("role") != "user":
            report.add(
                first_turn,
                "first-turn",
                f"the first turn is not a user turn: {profile.provider} needs one first",
            )
    last = messages[-1]
    if not profile.accepts_system_last and is_system(last):
        report.add(
            len(messages) - 1,
            "system-last",
            f"the conversation ends on a system message: {profile.provider} wants a user or tool message "
            "last (add a user turn)",
        )
    if profile.orders_thinking and _final_text(messages) and last.get("thinking_blocks"):
        report.add(
            len(messages) - 1,
            "final-thinking",
            f"thinking blocks on the final assistant turn: {profile.provider} rejects them there while "
            "thinking is off, and refuses a prefill while it is on",
        )
    if last.get("role") == "assistant" and not last.get("tool_calls"):
        if profile.prefill_needs_prefix:
            if last.get("prefix") is not True:
                report.add(
                    len(messages) - 1,
                    "prefix",
                    f"the conversation ends on an assistant text: "
                    f"{profile.provider} needs it marked prefix: true (or a user turn last)",
                )
        elif not profile.supports_assistant_prefill:
            report.add(
                len(messages) - 1,
                "prefill",
                "the conversation ends on an assistant text: this model "
                "does not support assistant prefill (add a user turn)",
            )


def _final_text(messages: Sequence[Message]) -> bool:
    last = messages[-1]
    return last.get("role") == "assistant" and not last.get("tool_calls")
