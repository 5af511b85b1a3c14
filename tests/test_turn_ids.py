"""Tool-call ids scoped to their turn (issue 13, part 2).

Some models mint ids per turn: Kimi K2 answers ``functions.NAME:0`` in every turn, local servers ``call_0``.
OpenAI accepts such a conversation, since each result answers the nearest call before it with its id. The
protocol check accepts it too; the profiles of providers that want every id once in a request (Anthropic,
Bedrock, Vertex AI's and OpenRouter's Claude: quirk 17) give each later turn new ids, on the call and its
result alike. Checked on the lists the profiles make, and (Anthropic, Bedrock) on the native bodies the
real ``litellm.completion`` sends to the stand-in.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import Phase, find, given, settings

from messages import (
    AIMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
    protocol_errors,
    repair_conversation,
)
from messages import strategies as ms
from messages.profiles import registered_profiles
from tests.wire import calls_answered, protocol_problems, tool_results, unique_ids


def kimi_turn(*calls: tuple[str, str]) -> AIMessage:
    """An assistant turn as Kimi K2 writes it: ids ``functions.NAME:INDEX``, minted afresh every turn."""
    return AIMessage(
        tool_calls=[
            ToolCall(id=f"functions.{name}:{n}", name=name, arguments=json.dumps({"q": query}))
            for n, (name, query) in enumerate(calls)
        ]
    )


def answer(call_id: str, query: str) -> ToolMessage:
    """The result of the call that asked ``query``: its text names the query, so the call it answers can be
    recognised on the wire whatever id it is sent under."""
    return ToolMessage(tool_call_id=call_id, content=f"result for {query}")


KIMI: list[Message] = [
    SystemMessage(content="You are a research assistant."),
    UserMessage(content="Find the weather in Oslo, then in Rome and Paris."),
    kimi_turn(("search", "oslo")),
    answer("functions.search:0", "oslo"),
    kimi_turn(("search", "rome"), ("search", "paris")),
    answer("functions.search:1", "paris"),
    answer("functions.search:0", "rome"),
    AIMessage(content="Snow in Oslo, sun in Rome and Paris."),
    UserMessage(content="And Lyon?"),
    kimi_turn(("search", "lyon")),
    answer("functions.search:0", "lyon"),
]
"""A Kimi K2 tool loop: ``functions.search:0`` called in three turns, ``functions.search:1`` answered
before ``:0`` in the second."""

LOCAL: list[Message] = [
    UserMessage(content="Time in Tokyo, then in Lima?"),
    AIMessage(tool_calls=[ToolCall(id="call_0", name="time", arguments='{"q": "tokyo"}')]),
    answer("call_0", "tokyo"),
    AIMessage(tool_calls=[ToolCall(id="call_0", name="time", arguments='{"q": "lima"}')]),
    answer("call_0", "lima"),
]
"""A local server's ``call_0`` in every turn."""


def answered_queries(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """For each tool result, in order: the query of the call it answers (the nearest call before it with its
    id) and the query its text names. Equal pairs mean every result still answers its own call."""
    calls: dict[str, str] = {}
    found = []
    for m in messages:
        for c in m.get("tool_calls") or []:
            calls[c["id"]] = json.loads(c["function"]["arguments"])["q"]
        if m.get("role") == "tool":
            found.append((calls.get(m["tool_call_id"], "?"), str(m["content"]).removeprefix("result for ")))
    return found


def test_the_unique_id_profiles_are_the_claude_and_bedrock_ones():
    # Quirk 17 ("tool_use ids must be unique") and 45: every profile that reaches a Claude model or Bedrock.
    unique = {p.name for p in registered_profiles() if unique_ids(p)}
    assert {"anthropic", "bedrock", "vertex_ai:claude", "openrouter:claude"} <= unique
    assert not {"openai", "mistral", "gemini", "openrouter", "ollama_chat"} & unique
    assert all(
        p.provider in ("anthropic", "bedrock", "vertex_ai", "openrouter")
        for p in registered_profiles()
        if unique_ids(p)
    )
    assert all(
        "claude" in (p.family or "claude")
        for p in registered_profiles()
        if unique_ids(p) and p.provider in ("vertex_ai", "openrouter")
    )


@pytest.mark.parametrize("conversation", [KIMI, LOCAL], ids=["kimi", "call_0"])
def test_per_turn_ids_pass_dump_messages_for_every_profile(conversation):
    assert protocol_errors(conversation) == []
    assert repair_conversation(conversation) == conversation
    plain = dump_messages(conversation)
    assert answered_queries(plain) == [(q, q) for q, _ in answered_queries(plain)]
    for profile in registered_profiles():
        # The ids are the subject; what a profile refuses (cohere:v1 any history) is
        # test_profile_properties.py's.
        sent = dump_messages(conversation, profile=profile, on_unfixable="send")
        if not profile.supports_tools:
            continue
        assert protocol_problems(sent) == [], profile.name
        assert answered_queries(sent) == answered_queries(plain), profile.name
        ids = [c["id"] for m in sent for c in m.get("tool_calls") or []]
        assert all(profile.tool_call_ids.accepts(i) for i in ids), (profile.name, ids)
        if unique_ids(profile):
            assert len(set(ids)) == len(ids), (profile.name, ids)
        assert dump_messages(conversation, profile=profile, on_unfixable="send") == sent  # deterministic
        assert [v for v in profile.check(sent) if v.fixable] == [], profile.name


def test_the_anthropic_profile_gives_each_later_turn_new_ids_and_keeps_the_first():
    sent = dump_messages(KIMI, model="anthropic/claude-sonnet-4-5")
    ids = [[c["id"] for c in m.get("tool_calls") or []] for m in sent if m.get("tool_calls")]
    first, second, third = ids
    # Kimi's ids break Anthropic's pattern ([a-zA-Z0-9_-], quirk 17), so even the first turn's change; then
    # each later turn gets ids of its own, and results follow their calls.
    assert len({*first, *second, *third}) == 4
    assert [r["tool_call_id"] for r in tool_results(sent)] == [first[0], second[1], second[0], third[0]]
    # An id Anthropic accepts keeps its value in the turn that first uses it.
    local = dump_messages(LOCAL, model="anthropic/claude-sonnet-4-5")
    assert next(c["id"] for m in local for c in m.get("tool_calls") or []) == "call_0"
    assert len({r["tool_call_id"] for r in tool_results(local)}) == 2


def per_turn_ids(conversation: list[Message], style: str) -> list[Message]:
    """``conversation`` (protocol-valid) with ids minted per turn: in each assistant turn the n-th call gets
    ``functions.NAME:n`` (Kimi) or ``call_n``, and its results get the same."""
    out: list[Message] = []
    renamed: dict[str, str] = {}
    for message in conversation:
        if isinstance(message, AIMessage) and message.tool_calls:
            renamed = {
                c.id: f"functions.{c.name}:{n}" if style == "kimi" else f"call_{n}"
                for n, c in enumerate(message.tool_calls)
            }
            calls = [c.model_copy(update={"id": renamed[c.id]}) for c in message.tool_calls]
            message = message.model_copy(update={"tool_calls": calls})
        elif isinstance(message, ToolMessage):
            message = message.model_copy(update={"tool_call_id": renamed[message.tool_call_id]})
        out.append(message)
    return out


_PROFILES = {
    (p.provider, tuple(sorted(map(repr, p.rules)))): p for p in registered_profiles()
}.values()  # one profile per behaviour (the Claude families that refuse prefill behave alike)


@given(ms.conversations(max_turns=6), ms.st.sampled_from(["kimi", "call"]))
def test_every_profile_sends_per_turn_ids_paired_with_their_calls(conversation, style):
    conversation = per_turn_ids(conversation, style)
    assert protocol_errors(conversation) == []
    assert repair_conversation(conversation) == conversation
    plain = dump_messages(conversation)
    for profile in _PROFILES:
        # The ids are the subject; content a provider has no form for is test_profile_properties.py's.
        sent = dump_messages(conversation, profile=profile, on_unfixable="send")
        assert profile.apply(sent, on_unfixable="send") == sent, profile.name
        if not profile.supports_tools:
            continue
        assert protocol_problems(sent) == [], profile.name
        if profile.rule("identical-calls") is None:  # Gemini splits repeated calls into turns of their own
            assert len(tool_results(sent)) == len(tool_results(plain))
        assert sorted(map(str, calls_answered(sent))) == sorted(map(str, calls_answered(plain))), profile.name
        ids = [c["id"] for m in sent for c in m.get("tool_calls") or []]
        rule = profile.tool_call_ids
        assert all(rule.accepts(i) for i in ids), (profile.name, ids)
        if unique_ids(profile):
            assert len({rule.sent_as(i) for i in ids}) == len(ids), (profile.name, ids)
        assert [str(v) for v in profile.check(sent) if v.fixable] == [], profile.name


# --- the native bodies litellm sends ------------------------------------------------------------------------


def _anthropic_pairs(body: dict[str, Any]) -> tuple[list[str], list[tuple[str, str]]]:
    """Every tool_use id, and for each tool_result the query of the tool_use it answers (in the assistant
    turn right before it) with the query its text names."""
    ids: list[str] = []
    pairs = []
    previous: dict[str, str] = {}
    for message in body["messages"]:
        blocks = message["content"] if isinstance(message["content"], list) else []
        uses = {b["id"]: b["input"]["q"] for b in blocks if b.get("type") == "tool_use"}
        ids += list(uses)
        for block in blocks:
            if block.get("type") == "tool_result":
                content = block["content"]
                text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
                pairs.append((previous.get(block["tool_use_id"], "?"), text.removeprefix("result for ")))
        previous = uses
    return ids, pairs


def _converse_pairs(body: dict[str, Any]) -> tuple[list[str], list[tuple[str, str]]]:
    ids: list[str] = []
    pairs = []
    previous: dict[str, str] = {}
    for message in body["messages"]:
        uses = {
            b["toolUse"]["toolUseId"]: b["toolUse"]["input"]["q"]
            for b in message["content"]
            if "toolUse" in b
        }
        ids += list(uses)
        for block in message["content"]:
            if "toolResult" in block:
                text = "".join(p.get("text", "") for p in block["toolResult"]["content"])
                pairs.append(
                    (previous.get(block["toolResult"]["toolUseId"], "?"), text.removeprefix("result for "))
                )
        previous = uses
    return ids, pairs


_TOOLS = [
    {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}},
    }
    for name in ("search", "time")
]


@pytest.mark.litellm
@pytest.mark.parametrize(
    ("model", "read"),
    [
        ("anthropic/claude-sonnet-4-5", _anthropic_pairs),
        ("bedrock/converse/anthropic.claude-3-5-sonnet-20240620-v1:0", _converse_pairs),
        ("bedrock/converse/meta.llama3-1-70b-instruct-v1:0", _converse_pairs),
    ],
    ids=["anthropic", "bedrock-claude", "bedrock-llama"],
)
@pytest.mark.parametrize("conversation", [KIMI, LOCAL], ids=["kimi", "call_0"])
def test_on_the_wire_ids_are_unique_and_each_result_answers_its_own_call(
    litellm, stand_in, model, read, conversation
):
    # Quirk 17: Anthropic answers 400 "tool_use ids must be unique"; Bedrock's Claude the same (quirk 45).
    litellm.completion(
        model=model,
        messages=dump_messages(conversation, model=model),
        tools=_TOOLS,
        **stand_in.completion_kwargs(model),
    )
    ids, pairs = read(stand_in.last_body())
    calls = sum(len(m.tool_calls) for m in conversation if isinstance(m, AIMessage))
    assert len(ids) == calls
    assert len(set(ids)) == len(ids), ids
    assert len(pairs) == calls
    assert all(asked == answered for asked, answered in pairs), pairs


@pytest.mark.litellm
def test_without_the_profile_anthropic_would_get_repeated_ids(litellm, stand_in):
    # What the profile is for: litellm alone sends every turn's call_0 as it is.
    model = "anthropic/claude-sonnet-4-5"
    litellm.completion(
        model=model, messages=dump_messages(LOCAL), tools=_TOOLS, **stand_in.completion_kwargs(model)
    )
    ids, _ = _anthropic_pairs(stand_in.last_body())
    assert ids == ["call_0", "call_0"]


# --- the shipped strategies ---------------------------------------------------------------------------------


def _turn_ids(conversation: list[Message]) -> list[list[str]]:
    return [[c.id for c in m.tool_calls] for m in conversation if isinstance(m, AIMessage) and m.tool_calls]


def test_the_strategies_use_an_id_again_in_a_later_turn_by_default():
    # So that every property test drawing conversations() meets per-turn ids too, as users' bots do.
    found = find(
        ms.conversations(),
        lambda c: any(
            set(later) & set(earlier) for n, later in enumerate(_turn_ids(c)) for earlier in _turn_ids(c)[:n]
        ),
        settings=settings(max_examples=2_000, database=None, phases=[Phase.generate]),  # found, not shrunk
    )
    assert protocol_errors(found) == []


@given(ms.conversations(reused_ids=False))
def test_reused_ids_false_keeps_every_id_of_the_conversation_unique(conversation):
    ids = [i for turn in _turn_ids(conversation) for i in turn]
    assert len(set(ids)) == len(ids)


@given(ms.conversations())
def test_the_calls_of_one_turn_keep_distinct_ids(conversation):
    assert protocol_errors(conversation) == []
    assert all(len(set(turn)) == len(turn) for turn in _turn_ids(conversation))
