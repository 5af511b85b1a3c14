"""The shared transforms on their own: each pure and idempotent; the id map deterministic, collision-free,
and accepted by its rule."""

from __future__ import annotations

import copy
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import AIMessage, Profile, ToolCall, ToolMessage, UserMessage, dump_messages, get_profile
from messages import strategies as ms
from messages.profiles import SIGNATURE_SEPARATOR, IdRule, registered_profiles
from messages.profiles import transforms as t
from messages.profiles._ids import tool_call_id_map
from tests.wire import missing_texts, pairing, roles

RULES = sorted({p.tool_call_ids for p in registered_profiles()}, key=repr)

FIXERS = {
    "drop_foreign_reasoning": t.drop_foreign_reasoning(
        "anthropic", thinking_blocks=True, provider_fields=False
    ),
    "keep_known_keys": t.keep_known_keys(get_profile("groq").message_keys, get_profile("groq").call_keys),
    "drop_keys": t.drop_keys(frozenset({"reasoning_content", "provider"})),
    "fold_refusal": t.fold_refusal(keep_key=False),
    "fold_refusal (keep)": t.fold_refusal(keep_key=True),
    "drop_names": t.drop_names(frozenset({"tool"})),
    "sanitize_names": t.sanitize_names(r"[a-z]"),
    "normalize_empty_arguments": t.normalize_empty_arguments,
    "set_system_role": t.set_system_role("user"),
    "flatten_text_content": t.flatten_text_content(("system", "tool")),
    "drop_blank_parts": t.drop_blank_parts(whitespace=True),
    "space_empty_text": t.space_empty_text,
    "set_call_turn_content (null)": t.set_call_turn_content("null", whitespace=True),
    "set_call_turn_content (empty)": t.set_call_turn_content("empty_string", whitespace=False),
    "fill_blank_tool_results": t.fill_blank_tool_results("(no output)", whitespace=True),
    "fill_reasoning_content": t.fill_reasoning_content(),
}

STEPS = {
    "rewrite_tool_call_ids (mistral)": lambda m: t.rewrite_tool_call_ids(
        m, get_profile("mistral").tool_call_ids
    ),
    "render_tool_exchanges_as_text": t.render_tool_exchanges_as_text,
    "move_late_system_messages": t.move_late_system_messages,
    "move_tool_media": t.move_tool_media,
    "drop_blank_messages": lambda m: t.drop_blank_messages(m, whitespace=True, turns=True),
    "ensure_a_turn": lambda m: t.ensure_a_turn(m, "Continue."),
    "merge_consecutive_roles": t.merge_consecutive_roles,
    "bridge_tool_results": lambda m: t.bridge_tool_results(m, "OK."),
    "ensure_user_first": lambda m: t.ensure_user_first(m, "Continue."),
    "ensure_user_last": lambda m: t.ensure_user_last(m, "Continue."),
    "mark_final_prefix": t.mark_final_prefix,
}


@given(ms.conversations())
def test_every_fixer_and_step_is_pure_and_idempotent(conversation):
    dumped = dump_messages(conversation)
    before = copy.deepcopy(dumped)
    for name, fixer in FIXERS.items():
        once = t.each(dumped, fixer)
        assert dumped == before, name
        assert t.each(once, fixer) == once, name
    for name, step in STEPS.items():
        once = step(dumped)
        assert dumped == before, name
        assert step(once) == once, name


@given(ms.conversations())
def test_steps_that_move_or_merge_keep_every_text(conversation):
    dumped = dump_messages(conversation)
    for name in ("render_tool_exchanges_as_text", "move_tool_media", "merge_consecutive_roles"):
        assert missing_texts(dumped, STEPS[name](dumped)) == [], name


@given(st.lists(ms.tool_call_ids(), max_size=12), st.sampled_from(RULES))
def test_the_id_map_is_deterministic_collision_free_and_accepted(ids, rule):
    mapping = tool_call_id_map(ids, rule)
    assert mapping == tool_call_id_map(list(ids), rule)
    assert set(mapping) == {i for i in ids if not rule.accepts(i)}
    kept = {i for i in ids if i not in mapping}
    assert all(rule.accepts(new) for new in mapping.values())
    assert len(set(mapping.values())) == len(mapping)
    assert kept.isdisjoint(mapping.values())
    # What reaches the provider after litellm cuts signatures is still one id per call.
    finals = [mapping.get(i, i) for i in dict.fromkeys(ids)]
    assert len({rule.sent_as(i) for i in finals}) == len(finals)


ALL_RULES = [*RULES, IdRule(alphabet="A-Za-z0-9", max_length=12), IdRule(keeps_signatures=True, max_length=9)]


# Ids made of letters and digits that str.isalnum takes and [a-zA-Z0-9] does not (é, Arabic-Indic one,
# fullwidth A), of characters some rules refuse, or carrying litellm's signature separator.
ID_ALPHABETS = {
    "alphanumeric": st.sampled_from("aZ9\u00e9\u0661\uff21"),
    "punctuation": st.sampled_from("aZ09_-. \n"),
    "signature": st.sampled_from(["a", "Z", "9", "_", "__thought__"]),
}


@pytest.mark.parametrize("rule", ALL_RULES, ids=repr)
@pytest.mark.parametrize("alphabet", ID_ALPHABETS)
@given(data=st.data())
def test_the_fast_id_check_is_the_rule_regex(rule, alphabet, data):
    edge = rule.max_length if rule.max_length is not None else 64
    size = data.draw(st.sampled_from(sorted({0, 1, rule.min_length, edge - 1, edge, edge + 1} - {-1})))
    pieces = data.draw(st.lists(ID_ALPHABETS[alphabet], min_size=size, max_size=size))
    call_id = "".join(pieces)
    assert rule.accepts(call_id) == (rule.pattern.fullmatch(call_id) is not None), (rule, call_id)


@given(ms.tool_call_ids(), st.sampled_from(ALL_RULES))
def test_the_fast_id_check_takes_the_ids_of_the_strategies_as_the_regex_does(call_id, rule):
    assert rule.accepts(call_id) == (rule.pattern.fullmatch(call_id) is not None), (rule, call_id)


def test_ids_litellm_would_cut_to_one_are_renamed_apart():
    # HELPERS.md: litellm cuts "<id>__thought__<signature>" to "<id>" for non-Gemini models, so "X" and
    # "X__thought__sig" would reach OpenAI as one id; the first new id guessed collides, and the rename
    # falls back to the collision-checked map.
    signed = f"call_x{SIGNATURE_SEPARATOR}c2ln"
    conversation = [
        UserMessage(content="Go"),
        AIMessage(tool_calls=[ToolCall(id="call_x", name="f", arguments="{}")]),
        ToolMessage(tool_call_id="call_x", content="one"),
        AIMessage(tool_calls=[ToolCall(id=signed, name="f", arguments="{}")]),
        ToolMessage(tool_call_id=signed, content="two"),
    ]
    applied = dump_messages(conversation, model="openai/gpt-4o")
    first, second = applied[1]["tool_calls"][0]["id"], applied[3]["tool_calls"][0]["id"]
    assert first == "call_x"
    assert second != "call_x"
    assert SIGNATURE_SEPARATOR not in second
    assert [applied[2]["tool_call_id"], applied[4]["tool_call_id"]] == [first, second]
    assert pairing(applied) == [0, 1]


def test_apply_takes_any_mapping_and_returns_dicts():
    frozen = [
        MappingProxyType({"role": "user", "content": "hi"}),
        MappingProxyType({"role": "assistant", "content": ""}),
    ]
    for profile in (get_profile("openai"), get_profile("anthropic"), get_profile("perplexity")):
        applied = profile.apply(frozen)
        assert all(type(m) is dict for m in applied)
        assert applied[0]["content"] == "hi"


def test_bridging_turns_get_reasoning_where_every_turn_needs_it():
    # A profile that needs both (none of the built-in ones does): the bridge is an assistant turn too.
    profile = Profile(
        provider="strict_thinker",
        needs_assistant_after_tool_results=True,
        accepts_reasoning_content=True,
        requires_reasoning_content=True,
    )
    conversation = dump_messages(
        [
            UserMessage(content="Go"),
            AIMessage(tool_calls=[ToolCall(id="c1", name="f", arguments="{}")], reasoning_content="why"),
            ToolMessage(tool_call_id="c1", content="done"),
            UserMessage(content="Thanks"),
        ]
    )
    applied = profile.apply(conversation)
    assert roles(applied) == ["user", "assistant", "tool", "assistant", "user"]
    assert [m.get("reasoning_content") for m in applied if m["role"] == "assistant"] == ["why", " "]
    assert profile.check(applied) == []


@pytest.mark.parametrize(
    ("first", "second", "merged"),
    [
        (
            {"role": "user", "content": "a"},
            {"role": "user", "content": "b"},
            {"role": "user", "content": "a\n\nb"},
        ),
        (
            {"role": "user", "content": "a", "name": "x"},
            {"role": "user", "content": [{"type": "text", "text": "b"}]},
            {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        ),
        (
            {"role": "assistant", "content": "Let me check.", "reasoning_content": " "},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c"}], "reasoning_content": "why"},
            {
                "role": "assistant",
                "content": "Let me check.",
                "reasoning_content": "why",
                "tool_calls": [{"id": "c"}],
            },
        ),
    ],
)
def test_merging_two_turns(first, second, merged):
    # Rows 20 and 53: one turn out of two, nothing lost, a name kept only when both agree.
    assert t.merge_consecutive_roles([first, second]) == [merged]


def test_id_rules_say_what_they_accept():
    assert (
        IdRule(alphabet="a-zA-Z0-9", min_length=9, max_length=9).describe()
        == "exactly 9 characters, only [a-zA-Z0-9]"
    )
    assert IdRule(max_length=40).describe() == "at most 40 characters, any characters"
    assert not IdRule().accepts(f"a{SIGNATURE_SEPARATOR}b")
    assert IdRule(keeps_signatures=True).accepts(f"a{SIGNATURE_SEPARATOR}b")
    assert IdRule().sent_as(f"a{SIGNATURE_SEPARATOR}b") == "a"


# The profiles whose turns must alternate merge consecutive turns inside their one pass over the messages
# (the fast path); ``merge_consecutive_roles`` is the reference it must agree with.
ALTERNATING = [p for p in registered_profiles() if p.needs_alternation]
CONTENTS = st.one_of(st.none(), st.just(""), st.text(max_size=5), st.just([{"type": "text", "text": "x"}]))


@given(ms.conversations(), st.data())
def test_the_merge_in_the_pass_is_merge_consecutive_roles(conversation, data):
    dumped = dump_messages(conversation)
    extra = data.draw(
        st.lists(
            st.tuples(
                st.integers(0, len(dumped)),
                st.sampled_from(["user", "assistant", "system"]),
                CONTENTS,
            ),
            max_size=6,
        )
    )
    # Turns of one role in a row, blank ones among them.
    for position, role, content in sorted(extra, key=lambda e: -e[0]):
        dumped.insert(position, {"role": role, "content": content})
    for profile in ALTERNATING:
        plan = profile._plan
        rename = profile.supports_tools
        separate, _, facts = plan.fix_each(dumped, rename=rename, merge=False)
        in_pass, _, merged_facts = plan.fix_each(dumped, rename=rename, merge=True)
        expected = t.merge_consecutive_roles(separate, then=plan.call_turn) if facts.same_roles else separate
        assert in_pass == expected, profile.name
        assert merged_facts.merged == (len(in_pass) < len(separate)), profile.name


def test_ids_given_up_on_in_place_are_put_back_before_the_collision_checked_map():
    # dump_messages renames ids in its own dump in place; when a new id collides (here: "X" and
    # "X__thought__sig" both reach OpenAI as "X"), the ids set are put back and the map decides.
    signed = f"call_x{SIGNATURE_SEPARATOR}c2ln"
    conversation = [
        UserMessage(content="Go"),
        AIMessage(tool_calls=[ToolCall(id=signed, name="f", arguments="{}")]),
        ToolMessage(tool_call_id=signed, content="two"),
        AIMessage(tool_calls=[ToolCall(id="call_x", name="f", arguments="{}")]),
        ToolMessage(tool_call_id="call_x", content="one"),
    ]
    for model in ("openai/gpt-4o", "mistral/mistral-large-latest", "anthropic/claude-sonnet-4-5"):
        assert dump_messages(conversation, model=model) == get_profile(model).apply(
            dump_messages(conversation)
        ), model


def test_missing_texts_counts_copies():
    # A test helper every content property rests on: one of two equal texts dropped is a text lost.
    from tests.wire import missing_texts

    before = [{"role": "user", "content": "Thanks."}, {"role": "user", "content": "Thanks."}]
    assert missing_texts(before, before[:1]) == ["Thanks."]
    assert missing_texts(before, [{"role": "user", "content": "Thanks.\n\nThanks."}]) == []
