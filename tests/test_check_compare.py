"""``messages check``'s comparison of a list before and after a profile (``messages._check.compare``).

It aligns the two lists in one pass (``_gaps``), so that checking a 100,000-message log costs per message
what a 10,000-message one does (``python -m benchmarks check``). What it reports must be what
``difflib.SequenceMatcher``'s alignment, which it replaces, reported: the matcher is the oracle here, on
generated conversations (broken and whole) through every registered profile, and on long ones.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from messages import EmptyConversationError, dump_messages, load_messages, repair_conversation
from messages import _check as check
from messages.profiles import get_profile, registered_profiles
from messages.strategies import broken_conversations, conversations

PROFILES = registered_profiles()


def matcher_gaps(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int, int, int]]:
    """The non-equal opcodes of ``difflib.SequenceMatcher``: the alignment ``compare`` used before."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [(i1, i2, j1, j2) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal"]


def by_the_matcher(before: Sequence[Any], after: Sequence[Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    """``compare`` with the matcher's alignment, for the lists and for the roles of every gap."""
    with monkeypatch.context() as patched:
        patched.setattr(check, "_gaps", matcher_gaps)
        patched.setattr(check, "_SMALL_GAP", 10**9)
        return check.compare(before, after)


def test_gaps_on_named_cases():
    # A message changed in place, one dropped, one added, two merged into one: each its own gap.
    assert check._gaps(list("abcde"), list("abXde")) == [(2, 3, 2, 3)]
    assert check._gaps(list("abcde"), list("abde")) == [(2, 3, 2, 2)]
    assert check._gaps(list("abde"), list("abXde")) == [(2, 2, 2, 3)]
    assert check._gaps(list("aUVb"), list("aWb")) == [(1, 3, 1, 2)]
    # A message moved back: the matcher keeps the earlier of two equal candidates on the first list's side.
    assert check._gaps(list("sucrt"), list("sucTru")) == matcher_gaps(list("sucrt"), list("sucTru"))
    assert check._gaps([], list("ab")) == [(0, 0, 0, 2)]
    assert check._gaps(list("ab"), []) == [(0, 2, 0, 0)]
    assert check._gaps(list("ab"), list("ab")) == []


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(conversations(max_turns=10), broken_conversations(max_turns=10)),
    st.sampled_from(PROFILES),
)
def test_compare_reports_what_the_matcher_reported(conversation, profile):
    raw = dump_messages(conversation, validate=False)
    try:
        repaired = dump_messages(repair_conversation(conversation), validate=False)
    except EmptyConversationError:
        assume(False)  # nothing to send: `messages check` compares nothing then
    applied = profile.apply(repaired, on_unfixable="send")
    with pytest.MonkeyPatch.context() as monkeypatch:
        # What `messages check` says the profile changes, and what `--fix` says it changed in all.
        assert check.compare(repaired, applied) == by_the_matcher(repaired, applied, monkeypatch)
        assert check.compare(raw, applied) == by_the_matcher(raw, applied, monkeypatch)


def _call(call_id: str, name: str = "f") -> dict[str, Any]:
    function = {"name": name, "arguments": "{}"}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }


def _result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _fixed(raw: list[dict[str, Any]], profile: str) -> list[dict[str, Any]]:
    """What ``messages check --fix`` sends: ``raw`` repaired, then through ``profile``."""
    repaired = dump_messages(repair_conversation(load_messages(raw)), validate=False)
    return get_profile(profile).apply(repaired, on_unfixable="send")


def test_an_id_reused_in_a_later_turn_is_renamed_per_turn_and_a_late_result_reads_as_moved():
    # A local server's "call_0" in two turns. Anthropic needs every id once in a request, so the second
    # turn's call and its result get a new id, the first turn's keep theirs; repair moves the first
    # result back before the nudge. What happened: one id rewritten, one message moved, nothing else.
    raw = [
        _user("hi"),
        _call("call_0"),
        _user("hurry"),
        _result("call_0", "one"),
        _call("call_0", "g"),
        _result("call_0", "two"),
        _user("thanks"),
    ]
    after = _fixed(raw, "anthropic")
    first, second = after[1]["tool_calls"][0]["id"], after[4]["tool_calls"][0]["id"]
    assert (first, after[2]["tool_call_id"]) == ("call_0", "call_0")
    assert second != "call_0"
    assert after[5]["tool_call_id"] == second
    changes = check.compare(raw, after)
    assert (changes.ids_rewritten, changes.id_examples) == (1, (("call_0", second),))
    assert changes.messages_moved == 1
    assert (changes.messages_added, changes.messages_dropped, changes.messages_merged) == (0, 0, 0)
    assert (changes.roles_changed, changes.contents_changed) == (0, 0)


def test_an_id_repeated_within_a_turn_maps_each_call_and_its_result_to_its_own_new_id():
    # Two calls of one turn with one id (quirk 17): repair renames the second, results in order; then
    # Mistral's 9-character ids. Two ids rewritten, each pair once; the results changed nowhere else.
    turn = {
        **_call("call_0"),
        "tool_calls": [*_call("call_0")["tool_calls"], *_call("call_0", "g")["tool_calls"]],
    }
    raw = [_user("hi"), turn, _result("call_0", "one"), _result("call_0", "two"), _user("thanks")]
    after = _fixed(raw, "mistral")
    new = [c["id"] for c in after[1]["tool_calls"]]
    assert len(set(new)) == 2
    assert [after[2]["tool_call_id"], after[3]["tool_call_id"]] == new
    changes = check.compare(raw, after)
    assert changes.ids_rewritten == 2
    assert set(changes.id_examples) == {("call_0", new[0]), ("call_0", new[1])}
    assert (changes.messages_added, changes.messages_dropped, changes.messages_merged) == (1, 0, 0)
    assert (changes.messages_moved, changes.roles_changed, changes.contents_changed) == (0, 0, 0)


@pytest.mark.parametrize("profile", ["mistral", "perplexity", "anthropic", "gemini", "openai_compatible"])
def test_compare_on_a_long_conversation_reports_what_the_matcher_reported(profile, monkeypatch):
    from benchmarks._conversation import build_conversation
    from messages import get_profile

    before = dump_messages(build_conversation(1_500))
    after = get_profile(profile).apply(before, on_unfixable="send")
    assert check.compare(before, after) == by_the_matcher(before, after, monkeypatch)


def test_long_gaps_are_aligned_in_one_pass_too():
    # A run of changed messages longer than the reach: paired one by one, whatever its length.
    n = 5 * check._REACH
    a = ["same", *(f"old {k}" for k in range(n)), "end"]
    b = ["same", *(f"new {k}" for k in range(n)), "end"]
    assert check._gaps(a, b) == [(1, n + 1, 1, n + 1)] == matcher_gaps(a, b)
    roles = ["user", "assistant"] * n
    assert check._opcodes(roles, roles) == [("equal", 0, 2 * n, 0, 2 * n)]
    assert check._opcodes(roles, roles[:-1]) == [
        ("equal", 0, 2 * n - 1, 0, 2 * n - 1),
        ("delete", 2 * n - 1, 2 * n, 2 * n - 1, 2 * n - 1),
    ]


# --- what is checked when some messages cannot be read ---------------------------------------------


ORDER_RULES = {
    "consecutive-roles",
    "history-dropped",
    "empty-conversation",
    "final-thinking",
    "first-turn",
    "late-system",
    "prefill",
    "prefix",
    "system-last",
    "thinking-order",
    "tool-then-user",
    "duplicate-tool-call-id",
    "reply-first",
    "system-after-reply",
    "cache-breakpoints",  # counts the marks of the whole list
}
"""Rules about the order of turns and the ends of the list: a message that cannot be read changes them."""


def test_one_message_rules_are_read_from_the_rules():
    every = {r.id for p in PROFILES for r in p.rules}
    alone = set().union(*(check.one_message_rules(p) for p in PROFILES))
    assert not alone & ORDER_RULES
    # What a message holds by itself: its keys, ids, arguments, parts and texts.
    assert {"tool-call-id", "unknown-key", "name", "empty-text", "unsupported-part", "null-content"} <= alone
    # Silent rules report nothing to check.
    assert not alone & {"own-keys", "extension-keys"}
    assert every - alone - ORDER_RULES == {"extension-keys"}  # own-keys is universal, added when compiled


def test_a_message_level_problem_is_reported_beside_a_message_that_cannot_be_read():
    # Message 1 cannot be read (a role that does not exist); message 2, an assistant turn with neither
    # text nor calls, is still judged by OpenAI's rule for it (quirk 5), at its own index.
    raw = [
        {"role": "user", "content": "hi"},
        {"role": "robot", "content": "?"},
        {"role": "assistant", "content": None},
    ]
    report = check.check_entry(check.Entry("f", None, raw), [check.Target(get_profile("openai"), "openai/x")])
    (profile,) = report.profiles
    assert [(p.index, p.rule, p.row) for p in profile.problems] == [(2, "null-content", 5)]
