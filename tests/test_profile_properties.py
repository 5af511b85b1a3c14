"""Properties every registered profile holds, over the conversations of ``messages.strategies``.

Each example conversation goes through every registered profile (each provider's own, and every model
family rule): ``apply`` never mutates its input, is idempotent, keeps every non-blank text, every tool
result and every image, keeps each result paired with its call under ids the provider accepts, and leaves
``check`` nothing it can fix.
"""

from __future__ import annotations

import copy
import json
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from messages import UnfixableError, dump_messages
from messages import strategies as ms
from messages.profiles import SIGNATURE_SEPARATOR, registered_profiles
from messages.profiles.rules.extensions import says_failure
from messages.quirks import QUIRKS
from tests.wire import (
    calls_answered,
    media,
    missing_texts,
    pairing,
    protocol_problems,
    tool_results,
    unique_ids,
)


def _distinct(profiles):
    """One profile per behaviour: family rules that differ only in their name (the many Claude families
    that refuse prefill) behave alike, and the properties need each behaviour once."""
    seen = {}
    for profile in profiles:
        seen.setdefault((profile.provider, tuple(sorted(map(repr, profile.rules)))), profile)
    return list(seen.values())


PROFILES = _distinct(registered_profiles())


def _show(messages):
    return json.dumps(messages, ensure_ascii=False)[:2000]


def refusal(call) -> set[tuple[int | None, str, int | None]]:
    """What ``call()`` (an apply or a dump with a model) refuses to send, as its ``UnfixableError`` lists
    it: (message index, rule, quirk) each; nothing when it sends."""
    try:
        call()
    except UnfixableError as error:
        violations = error.violations
    else:
        return set()
    assert violations
    return {(v.index, v.rule, v.row) for v in violations}


def refused(profile, messages) -> set[tuple[int | None, str, int | None]]:
    return refusal(lambda: profile.apply(messages))


def not_fixable(profile, messages) -> set[tuple[int | None, str, int | None]]:
    return {(v.index, v.rule, v.row) for v in profile.check(messages) if not v.fixable}


@given(ms.conversations())
def test_apply_refuses_exactly_what_check_calls_not_fixable(conversation):
    # Issue 24: nothing the profile cannot fix is sent; and it refuses nothing it could fix.
    dumped = dump_messages(conversation)
    for profile in PROFILES:
        assert refused(profile, dumped) == not_fixable(profile, dumped), (profile.name, _show(dumped))


@given(ms.conversations())
def test_apply_is_pure_idempotent_and_leaves_check_nothing_to_fix(conversation):
    dumped = dump_messages(conversation)
    before = copy.deepcopy(dumped)
    for profile in PROFILES:
        once = profile.apply(dumped, on_unfixable="send")
        assert dumped == before, f"{profile.name} mutated its input"
        assert once is not dumped
        assert profile.apply(once, on_unfixable="send") == once, (
            f"{profile.name} is not idempotent on {_show(dumped)}"
        )
        remaining = profile.check(once)
        assert [str(v) for v in remaining if v.fixable] == [], (profile.name, _show(once))
        # What apply cannot fix (images for a text-only model, ...) it does not make worse.
        after = Counter(v.rule for v in remaining)
        unfixable = Counter(v.rule for v in profile.check(dumped) if not v.fixable)
        assert after <= unfixable, profile.name


@given(ms.conversations())
def test_apply_keeps_every_text_and_tool_result_and_pairs_them_under_accepted_ids(conversation):
    dumped = dump_messages(conversation)
    for profile in PROFILES:
        applied = profile.apply(dumped, on_unfixable="send")  # sent anyway: the fixes keep content too
        assert missing_texts(dumped, applied) == [], profile.name
        # Images, audio and files may move (out of tool results), never disappear.
        assert Counter(media(applied)) >= Counter(media(dumped)), profile.name
        if not profile.supports_tools:
            continue
        before, after = tool_results(dumped), tool_results(applied)
        assert len(after) == len(before), f"{profile.name} lost a tool result"
        for old, new in zip(before, after, strict=True):
            assert missing_texts([old], [new]) == [], profile.name
        assert protocol_problems(applied) == [], (profile.name, _show(applied))
        assert calls_answered(applied) == calls_answered(dumped), profile.name
        if profile.rule("identical-calls") is None:
            assert pairing(applied) == pairing(dumped), profile.name
        rule = profile.tool_call_ids
        turns = [[c["id"] for c in m["tool_calls"]] for m in applied if m.get("tool_calls")]
        ids = [i for turn in turns for i in turn]
        assert all(rule.accepts(i) for i in ids), (profile.name, ids)
        # Distinct within each turn also as litellm sends them, after it cuts Gemini signatures for
        # non-Gemini models; unique over the whole request where the provider wants that (quirk 17). Other
        # providers take an id again in a later turn, as the protocol does.
        for turn in turns:
            assert len({rule.sent_as(i) for i in turn}) == len(turn), (profile.name, turn)
        if unique_ids(profile):
            assert len({rule.sent_as(i) for i in ids}) == len(ids), (profile.name, ids)
        if not rule.keeps_signatures:
            assert not any(SIGNATURE_SEPARATOR in i for i in ids)


@given(ms.conversations())
def test_no_profile_refuses_a_failed_tool_result_and_each_sends_the_failure_in_its_content(conversation):
    # Quirk 71: no route carries is_error, so every profile says the failure in the content (AutoGen's and
    # Agent Framework's "Error: ...") and leaves the flag out; a failed result is never refused for it.
    dumped = dump_messages(conversation)
    for profile in PROFILES:
        assert all(rule != "tool-error-flag" for _, rule, _ in refused(profile, dumped)), profile.name
        applied = profile.apply(dumped, on_unfixable="send")
        assert not any("is_error" in m for m in applied), profile.name  # the key (a text may say it)
        if not profile.supports_tools:
            continue  # the results are rendered as text that says "Error from ..." (quirk 61)
        for old, new in zip(tool_results(dumped), tool_results(applied), strict=True):
            if old.get("is_error") is True:
                assert says_failure(new.get("content")), (profile.name, old, new)


@given(ms.conversations())
def test_every_violation_names_a_real_row_and_a_message(conversation):
    dumped = dump_messages(conversation)
    for profile in PROFILES:
        for violation in profile.check(dumped):
            assert violation.row in QUIRKS, violation
            assert violation.index is None or 0 <= violation.index < len(dumped)
            assert violation.message
            assert violation.rule in str(violation)


@given(ms.conversations(extensions=False))
def test_profiles_change_nothing_openai_itself_accepts_except_what_they_must(conversation):
    # The OpenAI profile's only changes to a list without extension fields: ids over 40 characters, names
    # outside OpenAI's pattern, refusals without text, and the system role of o1-mini (quirks 3, 4, 5, 8).
    from messages.profiles import get_profile

    dumped = dump_messages(conversation)
    applied = get_profile("openai/gpt-4o").apply(dumped, on_unfixable="send")
    for old, new in zip(dumped, applied, strict=True):
        if old is new:
            continue
        changed = {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)}
        assert changed <= {"tool_calls", "tool_call_id", "name", "content"}, changed


@given(ms.conversations())
def test_dump_messages_with_a_model_is_the_profile_applied_to_the_dump(conversation):
    # dump_messages(model=...) fixes its own fresh dump in place where that is faster
    # (Profile._apply_owned); what it returns must be exactly what the pure apply makes of the dump.
    dumped = dump_messages(conversation)
    for profile in PROFILES:
        sent = dump_messages(conversation, profile=profile, on_unfixable="send")
        assert sent == profile.apply(dumped, on_unfixable="send"), profile.name
        by_dump = refusal(lambda profile=profile: dump_messages(conversation, profile=profile))
        assert by_dump == refused(profile, dumped), profile.name


# Raw dicts as callers of Profile.apply hold them, odder than any dump: blank and whitespace texts, empty
# part lists, media in system and developer messages, empty refusals, reasoning from anywhere, arguments
# "", ids of every kind. Each one a place where check and apply could disagree.
_TEXTS = st.sampled_from(["", " ", "\n", "hi", " padded ", "Continue.", "(no output)"])
_MEDIA = st.sampled_from(
    [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
        {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBER", "filename": "a.pdf"}},
    ]
)
_PARTS = st.lists(st.one_of(st.builds(lambda t: {"type": "text", "text": t}, _TEXTS), _MEDIA), max_size=3)
_CONTENT = st.one_of(st.none(), _TEXTS, _PARTS)
_IDS = st.sampled_from(
    ["call_1", "toolu_01", "ABC123xyz", "functions.get:0", "x" * 50, f"c1{SIGNATURE_SEPARATOR}QkJC", "a_b"]
)


@st.composite
def odd_conversations(draw):
    messages = []
    for _ in range(draw(st.integers(1, 6))):
        role = draw(st.sampled_from(["system", "developer", "user", "assistant", "tool_exchange"]))
        if role != "tool_exchange":
            m = {"role": role, "content": draw(_CONTENT)}
            if role == "assistant":
                for key, value in (
                    ("refusal", st.sampled_from(["", "I cannot."])),
                    ("reasoning_content", st.sampled_from(["", "thought"])),
                    ("provider", st.sampled_from(["deepseek", "anthropic", "gemini"])),
                ):
                    if draw(st.booleans()):
                        m[key] = draw(value)
            messages.append(m)
            continue
        ids = draw(st.lists(_IDS, min_size=1, max_size=3, unique=True))
        ids = [i for i in ids if all(i != c["id"] for m in messages for c in m.get("tool_calls") or [])]
        if not ids:
            continue
        calls = [
            {
                "id": i,
                "type": "function",
                "function": {
                    "name": draw(st.sampled_from(["f", "g"])),
                    "arguments": draw(st.sampled_from(["", "{}", '{"a": 1}'])),
                },
            }
            for i in ids
        ]
        messages.append({"role": "assistant", "content": draw(_CONTENT), "tool_calls": calls})
        messages.extend({"role": "tool", "tool_call_id": i, "content": draw(_CONTENT)} for i in ids)
    return messages


@given(st.one_of(odd_conversations(), ms.conversations().map(dump_messages)))
def test_what_check_calls_fixable_apply_fixes(messages):
    # Every violation check marks fixable is gone after apply, for every registered profile (not only one
    # per behaviour: family rules differ in their rows and messages too).
    for profile in registered_profiles():
        assert refused(profile, messages) == not_fixable(profile, messages), (profile.name, _show(messages))
        applied = profile.apply(messages, on_unfixable="send")
        left = [str(v) for v in profile.check(applied) if v.fixable]
        assert left == [], (profile.name, _show(messages), _show(applied))
