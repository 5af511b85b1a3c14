"""The rules on their own, and the compiled profile that runs them.

Each rule is pure and idempotent by itself; its screen never hides what its detection finds (the compiled
profile asks only the rules that screen a message's shape, so a screen too narrow would be a silent miss);
a list rule runs whenever its detection would find something it fixes; the ids planned over a whole list
are deterministic, collision-free and accepted.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import AIMessage, Profile, ToolCall, ToolMessage, UserMessage, dump_messages, get_profile
from messages import strategies as ms
from messages.profiles import SIGNATURE_SEPARATOR, IdRule, Rule, registered_profiles
from messages.profiles._profile import UNIVERSAL_RULES
from messages.profiles._rule import LONG_TEXT, SHAPES, code_of, code_of_dumped, shape_of
from messages.profiles.rules import (
    BridgeToolResults,
    CacheMarks,
    FinalThinking,
    NoPrefill,
    ReasoningContent,
    RedactedThinking,
    ToolCallIds,
    ToolMedia,
)
from messages.profiles.rules.calls import plan_ids
from messages.profiles.rules.order import merge_consecutive_roles
from messages.protocol import validated_call_ids
from tests.test_profile_properties import odd_conversations
from tests.wire import missing_texts, pairing, roles

PROFILES = registered_profiles()
OTHER_RELEASES_RULES = (
    RedactedThinking(row=48),
    NoPrefill(row=15, hoisted=True),
    FinalThinking(row=18, hoisted=True),
    ToolMedia(row=7),
    CacheMarks(row=75),
)
"""Rules the profiles hold with other litellm releases than the one installed (``messages._litellm``):
held to the same properties here, whichever release runs the suite."""
RULES = sorted(
    {r for p in PROFILES for r in p.rules} | set(UNIVERSAL_RULES) | set(OTHER_RELEASES_RULES), key=repr
)
ID_RULES = sorted({p.tool_call_ids for p in PROFILES}, key=repr)

# Keys a message or a call may carry beside the plain ones, as raw dicts from elsewhere have them.
_EXTRA_KEYS = st.sampled_from(
    [
        ("name", "ops team"),
        ("name", None),
        ("prefix", True),
        ("thinking_blocks", [{"type": "thinking", "thinking": "t", "signature": "s"}]),
        ("provider_specific_fields", {"thought_signature": "c2ln"}),
        ("provider", "gemini"),
        ("cache_control", {"type": "ephemeral"}),
        ("is_error", True),
        ("reasoning_content", "why"),
        ("refusal", "no"),
        ("cache_control", {"type": "ephemeral"}),
        ("metadata", {"x": 1}),
    ]
)
_CALL_KEYS = st.sampled_from([("index", 0), ("provider_specific_fields", {"thought_signature": "c2ln"})])


@st.composite
def sprinkled(draw, conversations):
    """Conversations with extra keys on some messages and calls."""
    messages = [copy.deepcopy(dict(m)) for m in draw(conversations)]
    for m in messages:
        for key, value in draw(st.lists(_EXTRA_KEYS, max_size=2)):
            if key != "refusal" or m.get("role") == "assistant":  # a refusal is an assistant's
                m[key] = value
        for call in m.get("tool_calls") or []:
            if isinstance(call, dict) and draw(st.booleans()):
                key, value = draw(_CALL_KEYS)
                call[key] = value
    return messages


CONVERSATIONS = st.one_of(
    odd_conversations(),
    ms.conversations().map(dump_messages),
    sprinkled(st.one_of(odd_conversations(), ms.conversations().map(dump_messages))),
)


ALONE = [Profile("alone", (rule,)) for rule in RULES]
MOVERS = {
    "consecutive-roles",
    "thinking-order",
    "tool-media",
    "tools-unsupported",
    "late-system",
    "identical-calls",
}


@given(CONVERSATIONS)
def test_every_rule_alone_is_pure_and_idempotent_and_keeps_what_it_moves(messages):
    before = copy.deepcopy(messages)
    for alone in ALONE:
        rule = alone.rules[0]
        # Sent anyway where the rule cannot fix something: what it does fix is under test here.
        once = alone.apply(messages, on_unfixable="send")
        assert messages == before, rule
        assert alone.apply(once, on_unfixable="send") == once, rule
        if rule.id in MOVERS:  # rules that merge, move or re-encode messages keep every text
            assert missing_texts(messages, once) == [], rule


@given(CONVERSATIONS)
def test_no_screen_hides_what_its_rule_detects(messages):
    # The compiled profile asks a rule about a message only when the rule screens the message's shape:
    # a detection in a shape the rule does not screen would never be seen by apply or check.
    for profile in PROFILES:
        plan = profile._plan
        for m in messages:
            m = dict(m)
            shape = shape_of(m)
            for pos, rule in enumerate(plan.rules):
                state = rule.start() if pos in plan.stateful else rule
                if plan.detects[pos](m, state):
                    assert rule.screens(shape), (profile.name, rule.id, shape, m)


@given(CONVERSATIONS)
def test_a_shape_a_rule_predicts_is_the_shape_its_fix_gives(messages):
    # Rule.reshape lets the pass skip measuring a fixed message again: where a rule says what a fix
    # makes of a shape, the fixed message must have that shape.
    for profile in PROFILES:
        plan = profile._plan
        for m in messages:
            shape = shape_of(m)
            for pos, rule in enumerate(plan.rules):
                if plan.fixes[pos] is None or not rule.screens(shape):
                    continue
                state = rule.start() if pos in plan.stateful else rule
                finding = plan.detects[pos](dict(m), state)
                predicted = rule.reshape(shape)
                if not finding or predicted is None:
                    continue
                fixed = rule.fix(dict(m), finding, state)
                if isinstance(fixed, dict):
                    assert shape_of(fixed) == predicted, (profile.name, rule.id, m)


@given(ms.conversations(), st.booleans())
def test_a_dumped_message_has_the_same_code_by_either_measure(conversation, validate):
    # code_of_dumped relies on the dumper's structure for tool calls; whatever the messages hold (every
    # field, provider_specific_fields on calls, blank arguments), it must agree with code_of.
    for m in dump_messages(conversation, validate=validate):
        assert code_of_dumped(m) == code_of(m), m


def test_the_shapes_cover_every_code():
    assert len(SHAPES) == 2 * 6 * 6 * 5 * 2
    assert code_of({"role": "user", "content": "hi"}) == SHAPES.index(
        shape_of({"role": "user", "content": "hi"})
    )
    assert shape_of({"role": "tool", "content": "x"}).odd  # no tool_call_id
    assert not shape_of({"role": "tool", "content": "x", "tool_call_id": "c"}).odd
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": ""}}
    assert shape_of({"role": "assistant", "content": None, "tool_calls": [call]}).blank_arguments
    assert shape_of({"role": "assistant", "content": None, "tool_calls": [{**call, "index": 0}]}).odd_calls
    # Long: a string content of more than LONG_TEXT characters, and nothing else about the shape changes.
    for role in ("user", "tool"):
        short = {"role": role, "content": "x" * LONG_TEXT, "tool_call_id": "c"}
        long = {**short, "content": "x" * (LONG_TEXT + 1)}
        assert not shape_of(short).long
        assert shape_of(long) == replace(shape_of(short), long=True)
    assert not shape_of({"role": "user", "content": [{"type": "text", "text": "x" * (LONG_TEXT + 1)}]}).long


@given(CONVERSATIONS)
def test_a_list_rule_runs_wherever_it_would_find_something_to_fix(messages):
    # apply runs a list rule only when the pass triggered it (a pair of neighbours it watches, or its
    # message-level detection) or when it always runs: what the rule would report as fixable on the list
    # the pass made must have triggered it.
    for profile in PROFILES:
        plan = profile._plan
        states = list(plan.rules)
        for pos in plan.stateful:
            states[pos] = plan.rules[pos].start()
        out, triggered = plan._pass(list(messages), states, plan.fixes, code_of, [])
        for pos in plan.listed:
            rule = plan.rules[pos]
            if rule.always or pos in triggered or type(rule).fix_list is Rule.fix_list:
                continue  # runs anyway, is triggered, or fixes what it finds in the pass
            fixable = [
                note
                for _, finding in rule.detect_list(out, plan.cx)
                for note in rule.describe_list(finding, out, plan.cx)
                if note.fixable
            ]
            assert fixable == [], (profile.name, rule.id, fixable)


# --- ids ---------------------------------------------------------------------------------------------


def _conversation_with(ids):
    messages = []
    for call_id in ids:
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": "done"})
    return messages


@given(st.lists(ms.tool_call_ids(), max_size=12), st.sampled_from(ID_RULES), st.booleans())
def test_planned_ids_are_deterministic_collision_free_and_accepted(ids, rule, unique):
    messages = _conversation_with(ids)
    planned = plan_ids(messages, rule, unique=unique)
    assert planned == plan_ids(copy.deepcopy(messages), rule, unique=unique)
    assert all(rule.accepts(new) for new in planned.values())
    assert len(set(planned.values())) == len(planned)
    applied = Profile("ids", (ToolCallIds(ids=rule, unique=unique),)).apply(messages, on_unfixable="send")
    sent = [m["tool_calls"][0]["id"] for m in applied if m.get("tool_calls")]
    assert all(rule.accepts(i) for i in sent)
    assert [m["tool_call_id"] for m in applied if m["role"] == "tool"] == sent  # each result, its call's id
    if unique:  # also as litellm sends them, after it cuts Gemini signatures for non-Gemini models
        assert len({rule.sent_as(i) for i in sent}) == len(sent)
    else:  # one id, one new id, in every turn
        assert len({(old, new) for old, new in zip(ids, sent, strict=True)}) == len(set(ids))


@given(st.lists(st.sampled_from(["call_1", "call_2", "functions.f:0", "toolu_01"]), min_size=1, max_size=6))
def test_ids_used_again_in_later_turns_get_new_ones_through_the_checked_ids_too(ids):
    # dump_messages(model=...) lets the id rule tell from the ids its protocol check gathered that it has
    # nothing to do; where an id comes back in a later turn, or breaks the pattern, it must still rename
    # (quirk 17), exactly as the pure apply does from the dump alone.
    conversation = [UserMessage(content="go")]
    for call_id in ids:
        conversation.append(AIMessage(tool_calls=[ToolCall(id=call_id, name="f", arguments="{}")]))
        conversation.append(ToolMessage(tool_call_id=call_id, content="done"))
    for model in ("anthropic/claude-sonnet-4-5", "openrouter/openai/gpt-4o", "openai/gpt-4o"):
        sent = dump_messages(conversation, model=model)
        assert sent == get_profile(model).apply(dump_messages(conversation)), model
        if model.startswith("anthropic"):
            call_ids = [c["id"] for m in sent for c in m.get("tool_calls") or []]
            assert len(set(call_ids)) == len(call_ids)
            assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == call_ids


ALL_ID_RULES = [
    *ID_RULES,
    IdRule(alphabet="A-Za-z0-9", max_length=12),
    IdRule(keeps_signatures=True, max_length=9),
]

# Ids made of letters and digits that str.isalnum takes and [a-zA-Z0-9] does not (é, Arabic-Indic one,
# fullwidth A), of characters some rules refuse, or carrying litellm's signature separator.
ID_ALPHABETS = {
    "alphanumeric": st.sampled_from("aZ9\u00e9\u0661\uff21"),
    "punctuation": st.sampled_from("aZ09_-. \n"),
    "signature": st.sampled_from(["a", "Z", "9", "_", "__thought__"]),
}


@pytest.mark.parametrize("rule", ALL_ID_RULES, ids=repr)
@pytest.mark.parametrize("alphabet", ID_ALPHABETS)
@given(data=st.data())
def test_the_fast_id_check_is_the_rule_regex(rule, alphabet, data):
    edge = rule.max_length if rule.max_length is not None else 64
    size = data.draw(st.sampled_from(sorted({0, 1, rule.min_length, edge - 1, edge, edge + 1} - {-1})))
    pieces = data.draw(st.lists(ID_ALPHABETS[alphabet], min_size=size, max_size=size))
    call_id = "".join(pieces)
    assert rule.accepts(call_id) == (rule.pattern.fullmatch(call_id) is not None), (rule, call_id)


@given(ms.tool_call_ids(), st.sampled_from(ALL_ID_RULES))
def test_the_fast_id_check_takes_the_ids_of_the_strategies_as_the_regex_does(call_id, rule):
    assert rule.accepts(call_id) == (rule.pattern.fullmatch(call_id) is not None), (rule, call_id)


@pytest.mark.parametrize("rule", ALL_ID_RULES, ids=repr)
@pytest.mark.parametrize("alphabet", [*ID_ALPHABETS, "joiner"])
@given(data=st.data())
def test_ids_accepted_in_bulk_are_those_accepted_one_by_one(rule, alphabet, data):
    # accepts_every joins the ids with a NUL to check them at once: an id holding a NUL itself, a
    # separator split across two ids, a non-string among them must not fool it.
    edge = rule.max_length if rule.max_length is not None else 64
    sizes = st.sampled_from(sorted({0, 1, rule.min_length, edge - 1, edge, edge + 1} - {-1}))
    pieces = ID_ALPHABETS.get(alphabet, st.sampled_from(["a", "9", "\x00", "__th", "ought__"]))
    one = sizes.flatmap(lambda size: st.lists(pieces, min_size=size, max_size=size).map("".join))
    ids = data.draw(st.lists(st.one_of(one, one, st.none(), st.integers()), max_size=5))
    expected = all(type(i) is str and rule.accepts(i) for i in ids)
    assert rule.accepts_every(ids) == expected, (rule, ids)


@given(CONVERSATIONS)
def test_a_rule_that_says_it_is_idle_finds_nothing_and_leaving_it_out_changes_nothing(messages):
    for profile in PROFILES:
        plan = profile._plan
        for pos in plan.idlers:
            rule = plan.rules[pos]
            if rule.idle(messages):
                state = rule.start() if pos in plan.stateful else rule
                assert not any(rule.detect(dict(m), state) for m in messages), (profile.name, rule.id)
        asking_every_rule = replace(plan, idlers=(), subplans={}, same_tails={})
        assert plan.apply(messages, owned=False) == asking_every_rule.apply(messages, owned=False)


@given(ms.conversations(max_turns=6, max_parallel_calls=3))
def test_an_idle_rule_says_the_same_from_the_ids_the_protocol_check_gathered(conversation):
    # dump_messages(model=...) passes the call ids its protocol check gathered; an idle rule must answer
    # from them exactly as it does from the dumped list alone.
    # (Where ids must be unique in the request, only the checked ids can tell: from the list alone the
    # rule is never idle, and from the ids it must find nothing in any message.)
    dumped = dump_messages(conversation)
    call_ids = validated_call_ids(conversation)
    for profile in PROFILES:
        plan = profile._plan
        for pos in plan.idlers:
            rule = plan.rules[pos]
            told = rule.idle(dumped, call_ids)
            if told:
                state = rule.start() if pos in plan.stateful else rule
                assert not any(rule.detect(dict(m), state) for m in dumped), (profile.name, rule.id)
            if not getattr(rule, "unique", False):
                assert told == rule.idle(dumped), (profile.name, rule.id)


def test_ids_the_provider_takes_leave_the_id_rule_out_of_the_pass():
    conversation = _conversation_with(["call_1", "call_2"])

    def id_rule(model):
        plan = get_profile(model)._plan
        (pos,) = [p for p, rule in enumerate(plan.rules) if rule.id == "tool-call-id"]
        assert pos in plan.idlers
        return plan.rules[pos]

    assert id_rule("openai/gpt-4o").idle(conversation)
    assert not id_rule("openai/gpt-4o").idle(_conversation_with(["call_1", "x" * 41]))  # quirk 3
    assert not id_rule("mistral/mistral-large-latest").idle(conversation)  # quirk 30: 9 alphanumerics
    assert id_rule("mistral/mistral-large-latest").idle(_conversation_with(["abcdefgh1", "abcdefgh2"]))
    # The same verdicts from the ids alone, as dump_messages(model=...) hands them over.
    assert id_rule("openai/gpt-4o").idle([], ["call_1", "call_2"])
    assert not id_rule("openai/gpt-4o").idle([], ["call_1", "x" * 41])  # quirk 3
    assert not id_rule("mistral/mistral-large-latest").idle([], ["call_1"])  # quirk 30
    # Anthropic's ids must also be unique in the request (quirk 17): an id called again in a later turn.
    assert id_rule("anthropic/claude-sonnet-4-5").idle([], ["call_1", "call_2"])
    assert not id_rule("anthropic/claude-sonnet-4-5").idle([], ["call_1", "call_1"])
    assert not id_rule("anthropic/claude-sonnet-4-5").idle(conversation)  # the list alone cannot tell


SIGNED = f"call_x{SIGNATURE_SEPARATOR}c2ln"


def test_ids_litellm_would_cut_to_one_are_renamed_apart():
    # litellm cuts "<id>__thought__<signature>" to "<id>" for non-Gemini models, so "X" and
    # "X__thought__sig" would reach OpenAI as one id; the first new id guessed collides, and the ids are
    # planned over the whole list instead.
    conversation = [
        UserMessage(content="Go"),
        AIMessage(tool_calls=[ToolCall(id="call_x", name="f", arguments="{}")]),
        ToolMessage(tool_call_id="call_x", content="one"),
        AIMessage(tool_calls=[ToolCall(id=SIGNED, name="f", arguments="{}")]),
        ToolMessage(tool_call_id=SIGNED, content="two"),
    ]
    applied = dump_messages(conversation, model="openai/gpt-4o")
    first, second = applied[1]["tool_calls"][0]["id"], applied[3]["tool_calls"][0]["id"]
    assert first == "call_x"
    assert second != "call_x"
    assert SIGNATURE_SEPARATOR not in second
    assert [applied[2]["tool_call_id"], applied[4]["tool_call_id"]] == [first, second]
    assert pairing(applied) == [0, 1]


def test_ids_set_in_place_are_put_back_before_the_ids_are_planned():
    # dump_messages renames ids in its own dump in place; when a new id collides (here: "X" and
    # "X__thought__sig" both reach OpenAI as "X"), the ids set are put back and the plan decides.
    conversation = [
        UserMessage(content="Go"),
        AIMessage(tool_calls=[ToolCall(id=SIGNED, name="f", arguments="{}")]),
        ToolMessage(tool_call_id=SIGNED, content="two"),
        AIMessage(tool_calls=[ToolCall(id="call_x", name="f", arguments="{}")]),
        ToolMessage(tool_call_id="call_x", content="one"),
    ]
    for model in ("openai/gpt-4o", "mistral/mistral-large-latest", "anthropic/claude-sonnet-4-5"):
        assert dump_messages(conversation, model=model) == get_profile(model).apply(
            dump_messages(conversation)
        ), model


def test_id_rules_say_what_they_accept():
    assert (
        IdRule(alphabet="a-zA-Z0-9", min_length=9, max_length=9).describe()
        == "exactly 9 characters, only [a-zA-Z0-9]"
    )
    assert IdRule(max_length=40).describe() == "at most 40 characters, any characters"
    assert not IdRule().accepts(f"a{SIGNATURE_SEPARATOR}b")
    assert IdRule(keeps_signatures=True).accepts(f"a{SIGNATURE_SEPARATOR}b")
    assert IdRule().sent_as(f"a{SIGNATURE_SEPARATOR}b") == "a"


# --- the rest ----------------------------------------------------------------------------------------


def test_apply_takes_any_mapping_and_returns_dicts():
    frozen = [
        MappingProxyType({"role": "user", "content": "hi"}),
        MappingProxyType({"role": "assistant", "content": ""}),
    ]
    for profile in (get_profile("openai"), get_profile("anthropic"), get_profile("perplexity")):
        applied = profile.apply(frozen)
        assert all(type(m) is dict for m in applied)
        assert applied[0]["content"] == "hi"


def test_messages_a_list_step_makes_go_through_the_message_rules():
    # A profile that needs both (none of the built-in ones does): the bridge is an assistant turn too, so
    # the rule that every assistant turn carries reasoning gives it one.
    profile = Profile("strict_thinker", (BridgeToolResults(), ReasoningContent()))
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
    # Quirks 20 and 53: one turn out of two, nothing lost, a name kept only when both agree.
    assert merge_consecutive_roles([first, second]) == [merged]


def test_missing_texts_counts_copies():
    # A test helper every content property rests on: one of two equal texts dropped is a text lost.
    before = [{"role": "user", "content": "Thanks."}, {"role": "user", "content": "Thanks."}]
    assert missing_texts(before, before[:1]) == ["Thanks."]
    assert missing_texts(before, [{"role": "user", "content": "Thanks.\n\nThanks."}]) == []
