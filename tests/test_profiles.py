"""Provider profiles on named hard cases, each citing its quirk; resolution; registry."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

import messages.profiles
from messages import (
    AIMessage,
    ImagePart,
    InvalidArgumentError,
    Profile,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UnfixableError,
    UnknownProfileError,
    UserMessage,
    Violation,
    dump_messages,
    get_profile,
    register_profile,
)
from messages._litellm import TOOL_MEDIA_MOVED
from messages.profiles import BUILTIN_MODULES, IdRule, registered_profiles
from messages.profiles.rules import (
    FinalThinking,
    KnownKeys,
    NoPrefill,
    RedactedThinking,
    TextLength,
    ThinkingOrder,
    ToolCallIds,
)
from messages.quirks import QUIRKS
from tests.wire import missing_texts, pairing, protocol_problems, roles

PNG = "data:image/png;base64,iVBORw0KGgo="
GEMINI_ID = "call_0123456789abcdef0123456789abcdef__thought__c2lnbmF0dXJlIG9uZQ=="


def call(call_id: str, arguments: str = '{"city":"Paris"}', name: str = "get_weather", **kw: Any) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments, **kw)


def fixable(profile: Profile, messages: list[dict[str, Any]]) -> list[str]:
    return [v.rule for v in profile.check(messages) if v.fixable]


# --- empty content -----------------------------------------------------------------------------------

EMPTY = [
    UserMessage(content=""),
    AIMessage(content="", tool_calls=[call("call_1")]),
    ToolMessage(tool_call_id="call_1", content=""),
    AIMessage(content=""),
    UserMessage(content="Thanks"),
]


def test_gemini_gets_a_space_for_empty_text_and_no_text_beside_calls():
    # quirk 23: litellm sends {"text": ""} for "", which Gemini rejects; quirk 24: dropping
    # the empty user turn instead would leave the function call first.
    profile = get_profile("gemini/gemini-2.5-flash")
    plain = dump_messages(EMPTY)
    assert sorted(set(fixable(profile, plain))) == ["call-turn-text", "empty-text"]
    assert dump_messages(EMPTY, model="gemini/gemini-2.5-flash") == [
        {"role": "user", "content": " "},
        {"role": "assistant", "content": None, "tool_calls": plain[1]["tool_calls"]},
        {"role": "tool", "tool_call_id": "call_1", "content": ""},
        {"role": "assistant", "content": " "},
        {"role": "user", "content": "Thanks"},
    ]


def test_anthropic_never_gets_litellm_placeholder_text():
    # Quirk 13: litellm writes "[System: Empty message content sanitised to satisfy protocol]" for every
    # empty or whitespace user/assistant text; quirk 19: the user turn dropped leaves the call first.
    applied = dump_messages(
        [*EMPTY[:3], AIMessage(content=" \n"), EMPTY[4]], model="anthropic/claude-sonnet-4-5"
    )
    assert applied == [
        {"role": "user", "content": "Continue."},
        {"role": "assistant", "content": None, "tool_calls": applied[1]["tool_calls"]},
        {"role": "tool", "tool_call_id": "call_1", "content": "(no output)"},
        {"role": "user", "content": "Thanks"},
    ]


BLANK_PARTS = [
    SystemMessage(content=[TextPart(text="Be brief."), TextPart(text=" ")]),
    UserMessage(content="Weather in Paris?"),
    AIMessage(content=[TextPart(text=""), TextPart(text="\n")], tool_calls=[call("call_1")]),
    ToolMessage(tool_call_id="call_1", content=[TextPart(text="\n"), TextPart(text="rain")]),
    AIMessage(content="Rain."),
    SystemMessage(content=[TextPart(text="Stay brief."), TextPart(text="\n")]),
    UserMessage(content="Thanks."),
]


@pytest.mark.parametrize(("model", "row"), [("anthropic/claude-sonnet-4-5", 13), ("bedrock/converse/x", 43)])
def test_blank_text_parts_leave_system_messages_and_tool_results(model, row):
    # Quirks 13 and 43: Anthropic and Bedrock reject a blank text block, in `system` and in a tool result
    # too; a system message half-way reaches Anthropic as a user turn, with litellm's placeholder text for
    # its blank part (docs/litellm.md, 'Anthropic gets a placeholder text for empty content').
    profile = get_profile(model)
    plain = dump_messages(BLANK_PARTS)
    found = [
        (v.index, v.rule, v.row)
        for v in profile.check(plain)
        if v.rule in ("empty-text", "empty-tool-result")
    ]
    assert found == [(0, "empty-text", row), (3, "empty-tool-result", row), (5, "empty-text", row)]
    applied = dump_messages(BLANK_PARTS, model=model)
    assert applied[0]["content"] == [{"type": "text", "text": "Be brief."}]
    assert applied[2]["content"] is None
    assert applied[3]["content"] == [{"type": "text", "text": "rain"}]
    assert applied[5]["content"] == [{"type": "text", "text": "Stay brief."}]
    assert fixable(profile, applied) == []
    assert missing_texts(plain, applied) == []


def test_gemini_call_turns_lose_their_empty_text_parts_only():
    # Quirk 23: litellm sends {"text": ""} for an empty part beside the calls, and Gemini rejects it;
    # whitespace is text to Gemini, and stays.
    profile = get_profile("gemini/gemini-2.5-flash")
    plain = dump_messages(BLANK_PARTS)
    assert [(v.index, v.row) for v in profile.check(plain) if v.rule == "call-turn-text"] == [(2, 23)]
    applied = dump_messages(BLANK_PARTS, model="gemini/gemini-2.5-flash")
    assert applied[2]["content"] == [{"type": "text", "text": "\n"}]
    assert applied[2]["tool_calls"] == plain[2]["tool_calls"]
    assert fixable(profile, applied) == []
    only_empty = [
        BLANK_PARTS[1],
        AIMessage(content=[TextPart(text="")], tool_calls=[call("call_1")]),
        BLANK_PARTS[3],
    ]
    assert dump_messages(only_empty, model="gemini/gemini-2.5-flash")[1]["content"] is None


@pytest.mark.parametrize(
    ("model", "row"), [("mistral/mistral-large-latest", 31), ("xai/grok-3", 40), ("bedrock/converse/x", 43)]
)
def test_empty_tool_results_say_so_where_they_would_be_dropped_or_rejected(model, row):
    # Quirk 31: litellm's Mistral route drops a tool message whose content is "" (the call is then left
    # unanswered); quirk 40: xAI rejects empty messages; quirk 43: Bedrock rejects blank text blocks.
    conversation = [UserMessage(content="Go"), *EMPTY[1:3], AIMessage(content="Done")]
    profile = get_profile(model)
    violation = next(v for v in profile.check(dump_messages(conversation)) if v.rule == "empty-tool-result")
    assert (violation.index, violation.row) == (2, row)
    applied = dump_messages(conversation, model=model)
    assert [m["content"] for m in applied if m["role"] == "tool"] == ["(no output)"]


def test_openai_keeps_empty_texts_and_arguments_exactly():
    # OpenAI accepts "" content and "" arguments; the bytes are kept for prompt caching.
    conversation = [*EMPTY[:1], AIMessage(content="", tool_calls=[call("call_1", "")]), *EMPTY[2:]]
    assert dump_messages(conversation, model="openai/gpt-4o") == dump_messages(conversation)


def test_xai_tool_call_turns_carry_an_empty_string():
    # Quirk 40: every message needs content; litellm strips content: null, so "" is what survives.
    applied = dump_messages(
        [UserMessage(content="Go"), *EMPTY[1:3], UserMessage(content="ok")], model="xai/grok-3"
    )
    assert applied[1]["content"] == ""


def test_a_conversation_of_one_empty_message_still_says_something():
    # Quirks 12 and 13: dropping the only (blank) turn would leave nothing to send.
    for model in ("mistral/mistral-small", "cohere/command-r", "xai/grok-3", "anthropic/claude-sonnet-4-5"):
        assert dump_messages([UserMessage(content="")], model=model) == [
            {"role": "user", "content": "Continue."}
        ]


def test_empty_arguments_become_an_empty_object_where_litellm_decodes_them():
    # Quirk 58: litellm's Anthropic, Bedrock, Gemini and Ollama converters json.loads the arguments.
    conversation = [
        UserMessage(content="Time?"),
        AIMessage(tool_calls=[call("call_1", "")]),
        ToolMessage(tool_call_id="call_1", content="12:00"),
    ]
    for model in (
        "anthropic/claude-sonnet-4-5",
        "bedrock/converse/x",
        "gemini/gemini-2.5-flash",
        "ollama_chat/llama3.1",
    ):
        applied = dump_messages(conversation, model=model)
        assert applied[1]["tool_calls"][0]["function"]["arguments"] == "{}", model


def test_arguments_that_are_not_json_are_reported_not_rewritten():
    # Quirk 58: litellm's Anthropic route replaces them with {} silently; only the caller can fix them.
    conversation = [
        UserMessage(content="Go"),
        AIMessage(tool_calls=[call("call_1", '{"city": "Par')]),
        ToolMessage(tool_call_id="call_1", content="?"),
    ]
    profile = get_profile("anthropic/claude-sonnet-4-5")
    with pytest.raises(UnfixableError) as refused:  # nothing is sent by default (issue 24)
        profile.apply(dump_messages(conversation))
    ((index, rule, row),) = [(v.index, v.rule, v.row) for v in refused.value.violations]
    assert (index, rule, row) == (1, "invalid-arguments", 58)
    applied = profile.apply(dump_messages(conversation), on_unfixable="send")
    assert applied[1]["tool_calls"][0]["function"]["arguments"] == '{"city": "Par'
    (violation,) = [v for v in profile.check(applied) if v.rule == "invalid-arguments"]
    assert (violation.index, violation.fixable, violation.row) == (1, False, 58)


# --- tool-call ids -----------------------------------------------------------------------------------


def test_mistral_gets_nine_character_ids_on_calls_and_results_alike():
    # Quirk 30: "Tool call id was call_... but must be a-z, A-Z, 0-9, with a length of 9"; parallel calls,
    # results out of order, ids minted by OpenAI, Ollama (UUID) and Kimi.
    ids = ["call_Ab12Cd34Ef56Gh78Ij90Kl", str(uuid.UUID(int=7)), "functions.get_weather:0"]
    conversation = [
        UserMessage(content="Weather in three cities?"),
        AIMessage(tool_calls=[call(i) for i in ids]),
        *[ToolMessage(tool_call_id=i, content=f"result {n}") for n, i in reversed(list(enumerate(ids)))],
    ]
    plain = dump_messages(conversation)
    assert [v.rule for v in get_profile("mistral").check(plain)].count("tool-call-id") == 6
    applied = dump_messages(conversation, model="mistral/mistral-large-latest")
    new_ids = [c["id"] for c in applied[1]["tool_calls"]]
    assert all(re.fullmatch(r"[a-zA-Z0-9]{9}", i) for i in new_ids)
    assert len(set(new_ids)) == 3
    assert pairing(applied) == pairing(plain) == [2, 1, 0]
    assert [m["content"] for m in applied[2:5]] == ["result 2", "result 1", "result 0"]
    # Deterministic: the same conversation always gets the same ids.
    assert dump_messages(conversation, model="mistral/mistral-large-latest") == applied


def test_openai_ids_over_40_characters_are_shortened_and_signatures_never_collide():
    # Quirk 3: ids longer than 40 are rejected. Quirk 25: litellm cuts "__thought__<signature>" off ids
    # for every non-Gemini model, so two calls whose ids differ only in their signatures reach the
    # provider as one id. OpenAI scopes ids to their turn (the second call is in a later turn), so that is
    # not a problem there; Anthropic wants every id once (quirk 17). The profiles give them apart anyway.
    first, second = GEMINI_ID, GEMINI_ID.replace("c2ln", "b3Ro")
    long_id = "ws_" + "x" * 60
    conversation = [
        UserMessage(content="Paris?"),
        AIMessage(tool_calls=[call(first)]),
        ToolMessage(tool_call_id=first, content="rain"),
        UserMessage(content="And again, and the web?"),
        AIMessage(tool_calls=[call(second), call(long_id, name="web_search")]),
        ToolMessage(tool_call_id=second, content="sun"),
        ToolMessage(tool_call_id=long_id, content="found"),
    ]
    plain = dump_messages(conversation)
    rules = [v.rule for v in get_profile("openai").check(plain)]
    assert rules.count("duplicate-tool-call-id") == 0
    assert rules.count("tool-call-id") == 2  # the long id, on its call and its result
    claude = [v.rule for v in get_profile("anthropic").check(plain)]
    assert claude.count("duplicate-tool-call-id") == 1
    applied = dump_messages(conversation, model="openai/gpt-4o")
    ids = [c["id"] for _, m in enumerate(applied) for c in m.get("tool_calls", [])]
    assert ids[0] == first.split("__thought__")[0]  # litellm's cut is kept when it is unique
    assert len(set(ids)) == 3
    assert all(len(i) <= 40 for i in ids)
    assert ids[2].startswith("ws_xxx")  # a readable head, a hash of the whole id
    assert pairing(applied) == pairing(plain)
    assert get_profile("openai").check(applied) == []
    # Gemini gets them back as they are: litellm reads the signatures out of the ids.
    assert dump_messages(conversation, model="gemini/gemini-3-pro") == plain


def test_kimi_ids_on_anthropic_do_not_collide_with_what_a_sanitizer_would_make():
    # Quirk 17: tool_use ids must match ^[a-zA-Z0-9_-]+$ and be unique. Replacing the invalid characters
    # of "functions.get_weather:0" gives "functions_get_weather_0", another call's id here.
    kimi, other = "functions.get_weather:0", "functions_get_weather_0"
    conversation = [
        UserMessage(content="Paris?"),
        AIMessage(tool_calls=[call(kimi)]),
        ToolMessage(tool_call_id=kimi, content="rain"),
        UserMessage(content="Oslo?"),
        AIMessage(tool_calls=[call(other)]),
        ToolMessage(tool_call_id=other, content="snow"),
    ]
    applied = dump_messages(conversation, model="anthropic/claude-sonnet-4-5")
    ids = [applied[1]["tool_calls"][0]["id"], applied[4]["tool_calls"][0]["id"]]
    assert ids[1] == other
    assert re.fullmatch(r"[a-zA-Z0-9_-]+", ids[0])
    assert ids[0] != other
    assert ids[0].startswith("functions_get_weather_0_")
    assert [applied[2]["tool_call_id"], applied[5]["tool_call_id"]] == ids


def test_bedrock_ids_fit_its_pattern_and_mistral_on_bedrock_gets_nine_characters():
    # Quirk 45: toolUseId [a-zA-Z0-9_-], at most 64; Mistral models on Bedrock need 9 alphanumerics.
    long_id = "call_" + "a" * 80
    conversation = [
        UserMessage(content="Go"),
        AIMessage(tool_calls=[call(long_id)]),
        ToolMessage(tool_call_id=long_id, content="ok"),
    ]
    llama = dump_messages(conversation, model="bedrock/converse/meta.llama3-70b-instruct-v1:0")
    assert len(llama[1]["tool_calls"][0]["id"]) == 64
    mistral = dump_messages(conversation, model="bedrock/converse/mistral.mistral-large-2402-v1:0")
    assert re.fullmatch(r"[a-zA-Z0-9]{9}", mistral[1]["tool_calls"][0]["id"])


def test_id_rules_reject_rules_they_cannot_satisfy():
    with pytest.raises(ValueError, match="must allow letters and digits"):
        IdRule(alphabet="_-")
    with pytest.raises(ValueError, match="shorter than min_length"):
        IdRule(min_length=9, max_length=4)


# --- keys and names ----------------------------------------------------------------------------------

NAMED = [
    SystemMessage(content="Be brief.", name="policy bot"),
    UserMessage(content="Hi", name="Ana María"),
    AIMessage(content=None, tool_calls=[call("call_1")], name="helper"),
    ToolMessage(tool_call_id="call_1", content="rain", name="get_weather"),
    AIMessage(content="Rain.", name="helper"),
    UserMessage(content="Thanks"),
]


def names(messages):
    return [m.get("name") for m in messages]


def test_names_go_where_each_provider_takes_them():
    # Quirk 4: OpenAI's name pattern; quirk 59: no name on assistant turns; quirk 33: Mistral takes name only
    # on tool results; quirk 55: Cohere takes none.
    assert names(dump_messages(NAMED, model="openai/gpt-4o")) == [
        "policy_bot",
        "Ana_María",
        None,
        None,
        None,
        None,
    ]
    assert names(dump_messages(NAMED, model="mistral/mistral-large-latest")) == [
        None, None, None, "get_weather", None, None
    ]  # fmt: skip
    assert set(names(dump_messages(NAMED, model="cohere/command-r"))) == {None}
    # litellm's own converters drop names for Anthropic: left alone.
    assert names(dump_messages(NAMED, model="anthropic/claude-sonnet-4-5")) == names(dump_messages(NAMED))


def test_strict_providers_get_only_keys_they_know():
    # Quirks 33 and 37: Mistral and Groq answer 422/400 to reasoning_content, provider fields and the like.
    reply = AIMessage(
        content="Hmm.",
        reasoning_content="thinking",
        thinking_blocks=[{"type": "thinking", "thinking": "t", "signature": "c2ln"}],
        provider_specific_fields={"citations": []},
        provider="anthropic",
    )
    conversation = [UserMessage(content="Hi"), reply, UserMessage(content="More")]
    for model, row in (("groq/llama-3.3-70b-versatile", 37), ("mistral/mistral-large-latest", 33)):
        profile = get_profile(model)
        (violation,) = [v for v in profile.check(dump_messages(conversation)) if v.rule == "unknown-key"]
        assert violation.row == row
        assert "reasoning_content" in violation.message
        applied = dump_messages(conversation, model=model)
        assert set(applied[1]) <= {"role", "content", "prefix"}


# --- reasoning payloads ------------------------------------------------------------------------------

SIGNED = [{"type": "thinking", "thinking": "Paris first.", "signature": "c2lnbmVk"}]


def signed_conversation(provider: str) -> list[Any]:
    calls = [call("toolu_01", provider_specific_fields={"thought_signature": "c2ln"})]
    return [
        UserMessage(content="Weather?"),
        AIMessage(
            tool_calls=calls, thinking_blocks=SIGNED, reasoning_content="Paris first.", provider=provider
        ),
        ToolMessage(tool_call_id="toolu_01", content="rain"),
        UserMessage(content="Thanks"),
    ]


def test_signed_thinking_blocks_go_back_to_their_signer_only():
    # Quirk 18: Anthropic rejects another provider's signatures ("Invalid `signature` in `thinking` block");
    # quirk 48: Bedrock round-trips its own.
    conversation = signed_conversation("anthropic")
    assert dump_messages(conversation, model="anthropic/claude-sonnet-4-5")[1]["thinking_blocks"] == SIGNED
    for model in (
        "bedrock/converse/anthropic.claude-3-7-sonnet-20250219-v1:0",
        "vertex_ai/claude-sonnet-4-5",
        "openai/gpt-4o",
    ):
        applied = dump_messages(conversation, model=model)
        assert "thinking_blocks" not in applied[1], model
        assert "provider" not in applied[1], model
    plain_check = get_profile("bedrock/converse/anthropic.claude-3-7-sonnet-20250219-v1:0").check(
        dump_messages(conversation)
    )
    assert [(v.rule, v.row) for v in plain_check if v.rule == "foreign-reasoning"] == [
        ("foreign-reasoning", 48)
    ]


def test_anthropic_gets_no_thinking_on_a_final_assistant_text():
    # Quirk 18: "When thinking is disabled, an `assistant` message in the final position cannot contain
    # `thinking`", and with thinking enabled Anthropic refuses a prefill altogether: the prefill keeps its
    # text and sends no thinking. Claude 4.6 and later get a user turn last (quirk 15), so the thinking stays.
    conversation = [
        UserMessage(content="Write a haiku about rain."),
        AIMessage(content="Soft rain on the roof", thinking_blocks=SIGNED, provider="anthropic"),
    ]
    profile = get_profile("anthropic/claude-sonnet-4-5")
    plain = dump_messages(conversation)
    assert [(v.index, v.rule, v.row) for v in profile.check(plain)] == [(1, "final-thinking", 18)]
    applied = dump_messages(conversation, model="anthropic/claude-sonnet-4-5")
    assert applied == [plain[0], {"role": "assistant", "content": "Soft rain on the roof"}]
    assert profile.check(applied) == []
    later = dump_messages(conversation, model="anthropic/claude-opus-4-6")
    assert later[1]["thinking_blocks"] == SIGNED
    assert later[2] == {"role": "user", "content": "Continue."}


def test_anthropic_gets_no_thinking_in_any_trailing_assistant_text_litellm_merges_into_the_last_turn(litellm):
    # Quirk 18 again: litellm's Anthropic converter sends consecutive assistant messages as one turn, so
    # thinking on the one before a final assistant text ends up in the final position too. Found by
    # tests/conformance/test_outcomes.py (a refusal with redacted thinking, then a prefill).
    from messages.testing import StandInServer
    from tests.conftest import send_kwargs

    conversation = [
        UserMessage(content="Write a haiku about rain."),
        AIMessage(content="Soft rain", thinking_blocks=SIGNED, provider="anthropic"),
        AIMessage(content="on the roof"),
    ]
    profile = get_profile("anthropic/claude-sonnet-4-5")
    assert [(v.index, v.rule) for v in profile.check(dump_messages(conversation))] == [(1, "final-thinking")]
    sent = dump_messages(conversation, model="anthropic/claude-sonnet-4-5")
    assert [m.get("thinking_blocks") for m in sent] == [None, None, None]
    with StandInServer() as server:
        litellm.completion(model="anthropic/claude-sonnet-4-5", messages=sent, **send_kwargs(server))
        last = server.last_body()["messages"][-1]
    assert last["role"] == "assistant"
    blocks = (
        last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
    )
    assert all(block["type"] == "text" for block in blocks), blocks
    assert "Soft rain" in json.dumps(blocks)
    assert "on the roof" in json.dumps(blocks)


def test_anthropic_gets_an_assistant_turn_with_thinking_merged_into_the_one_before_it():
    # Quirk 18: litellm merges two assistant turns in a row and the second one's thinking ends up after the
    # first one's text ("thinking blocks must come before the other blocks"); merged here, litellm puts
    # the thinking of both turns first.
    other = [{"type": "thinking", "thinking": "Then the street.", "signature": "c2lnbmVkIHR3bw=="}]
    conversation = [
        UserMessage(content="Write two lines about rain."),
        AIMessage(content="Rain taps the window.", thinking_blocks=SIGNED, provider="anthropic"),
        AIMessage(content="The street shines.", thinking_blocks=other, provider="anthropic"),
        UserMessage(content="Nice."),
    ]
    profile = get_profile("anthropic/claude-sonnet-4-5")
    plain = dump_messages(conversation)
    assert [(v.index, v.rule, v.row) for v in profile.check(plain)] == [(2, "thinking-order", 18)]
    applied = dump_messages(conversation, model="anthropic/claude-sonnet-4-5")
    assert applied == [
        plain[0],
        {
            "role": "assistant",
            "content": "Rain taps the window.\n\nThe street shines.",
            "thinking_blocks": [*SIGNED, *other],
        },
        plain[3],
    ]
    assert profile.check(applied) == []


def test_anthropic_merges_a_run_of_assistant_turns_ending_in_thinking_at_once():
    # Quirk 18: once merged, the turn carries thinking, so a text-only assistant turn before it would meet
    # the same fate in litellm; all three become one turn in one apply (found by the idempotence property).
    conversation = [
        UserMessage(content="Go on."),
        AIMessage(content="One."),
        AIMessage(content="Two."),
        AIMessage(content="Three.", thinking_blocks=SIGNED, provider="anthropic"),
        UserMessage(content="Done?"),
    ]
    profile = get_profile("anthropic/claude-sonnet-4-5")
    applied = profile.apply(dump_messages(conversation))
    assert applied[1] == {"role": "assistant", "content": "One.\n\nTwo.\n\nThree.", "thinking_blocks": SIGNED}
    assert len(applied) == 3
    assert profile.apply(applied) == applied
    assert profile.check(applied) == []


def test_gemini_thought_signatures_go_back_to_gemini_only():
    # Quirk 25: signatures must be echoed to Gemini, and other providers reject them.
    conversation = signed_conversation("gemini")
    assert dump_messages(conversation, model="gemini/gemini-2.5-flash")[1]["tool_calls"][0][
        "provider_specific_fields"
    ] == {"thought_signature": "c2ln"}
    for model in ("vertex_ai/gemini-2.5-flash", "openai/gpt-4o", "anthropic/claude-sonnet-4-5"):
        assert "provider_specific_fields" not in dump_messages(conversation, model=model)[1]["tool_calls"][0]


def test_deepseek_reasoner_gets_reasoning_content_on_every_assistant_turn():
    # Quirk 34: "Missing `reasoning_content` field in the assistant message at message index 2"; quirk 20:
    # the reasoner takes no consecutive turns of one role.
    conversation = [
        *signed_conversation("deepseek"),
        UserMessage(content="And tomorrow?"),
        AIMessage(content="Sun."),
    ]
    applied = dump_messages(conversation, model="deepseek/deepseek-reasoner")
    assert roles(applied) == ["user", "assistant", "tool", "user", "assistant"]
    assert applied[3]["content"] == "Thanks\n\nAnd tomorrow?"
    assert [m["reasoning_content"] for m in applied if m["role"] == "assistant"] == ["Paris first.", " "]
    assert "reasoning_content" not in dump_messages(conversation, model="groq/openai/gpt-oss-120b")[1]


@pytest.mark.parametrize("model", ["deepseek/deepseek-chat", "deepseek/deepseek-v4-flash"])
def test_deepseek_gets_back_the_reasoning_it_wrote_and_no_other(model):
    # Quirk 34: a deepseek-chat turn made in thinking mode must carry its reasoning_content back ("The
    # `reasoning_content` in the thinking mode must be passed back to the API"); quirk 35, the R1-era rule
    # against it, is superseded. Reasoning another provider wrote is not DeepSeek's; reasoning of no
    # recorded origin is taken as the target's own, as signed payloads are (and as apply leaves it).
    profile = get_profile(model)
    for origin in ("deepseek", None):
        conversation = signed_conversation("deepseek")
        conversation[1] = conversation[1].model_copy(update={"provider": origin})
        own = dump_messages(conversation, model=model)
        assert own[1]["reasoning_content"] == "Paris first.", origin
        assert "provider" not in own[1]
        assert "thinking_blocks" not in own[1]
        assert profile.apply(own) == own
    for origin in ("openrouter", "groq"):
        conversation = signed_conversation("deepseek")
        conversation[1] = conversation[1].model_copy(update={"provider": origin})
        dumped = dump_messages(conversation)
        assert [(v.index, v.rule, v.row) for v in profile.check(dumped) if v.rule == "foreign-reasoning"] == [
            (1, "foreign-reasoning", 34)
        ]
        applied = dump_messages(conversation, model=model)
        assert "reasoning_content" not in applied[1], origin
        assert profile.check(applied) == []


# --- images ------------------------------------------------------------------------------------------

IMAGE_RESULT = [
    UserMessage(content=[TextPart(text="What is on screen?"), ImagePart(url=PNG)]),
    AIMessage(tool_calls=[call("call_1", "{}", name="screenshot")]),
    ToolMessage(tool_call_id="call_1", content=[TextPart(text="captured"), ImagePart(url=PNG)]),
    AIMessage(content="A login form."),
]


def test_deepseek_gets_tool_images_moved_and_reports_the_images_it_cannot_see():
    # Quirk 7: images in tool results; quirk 36: litellm's DeepSeek route flattens content to text and drops
    # images silently, which only a vision model avoids.
    with pytest.raises(UnfixableError) as refused:
        dump_messages(IMAGE_RESULT, model="deepseek/deepseek-chat")
    assert {(v.index, v.rule, v.row) for v in refused.value.violations} == {
        (0, "unsupported-part", 36),
        (2, "unsupported-part", 36),
    }
    # Sent anyway, when the caller says so: the images are moved, and the model told what it misses.
    applied = dump_messages(IMAGE_RESULT, model="deepseek/deepseek-chat", on_unfixable="send")
    assert roles(applied) == ["user", "assistant", "tool", "user", "assistant"]
    # Quirk 36: a string, as DeepSeek takes content.
    assert applied[2]["content"] == "captured\n[1 attachment of this result moved to the next user message]"
    assert applied[3]["content"][1] == {"type": "image_url", "image_url": {"url": PNG}}
    # The model is told what it is not shown, where the images were.
    unseen = {"type": "text", "text": "[1 attachment not shown: this model takes no image_url parts]"}
    assert applied[0]["content"][-1] == unseen
    assert applied[3]["content"][-1] == unseen
    left = get_profile("deepseek/deepseek-chat").check(applied)
    assert {(v.rule, v.fixable, v.row) for v in left} == {("unsupported-part", False, 36)}
    assert (
        get_profile("deepseek/deepseek-v4-flash").check(
            dump_messages(IMAGE_RESULT, model="deepseek/deepseek-v4-flash")
        )
        == []
    )


def test_deepseek_gets_content_as_a_string_even_with_no_text_in_it():
    # Quirk 36: litellm's DeepSeek route joins text parts only when they have text, and keeps any other
    # list, which DeepSeek rejects ("invalid type: sequence, expected a string"): a result of empty text
    # parts, a turn that is one image, a turn of no parts. Text parts it joins with nothing between them.
    conversation = [
        UserMessage(content=[TextPart(text="Weather in Paris?"), TextPart(text="And be brief.")]),
        AIMessage(tool_calls=[call("call_1")]),
        ToolMessage(tool_call_id="call_1", content=[TextPart(text="")]),
        AIMessage(content="No data."),
        UserMessage(content=[ImagePart(url=PNG)]),
        AIMessage(content="I see no text."),
        UserMessage(content=[]),
        AIMessage(content=[TextPart(text="Say something.")]),
    ]
    plain = dump_messages(conversation)
    profile = get_profile("deepseek/deepseek-chat")
    assert [v.index for v in profile.check(plain) if v.rule == "text-content"] == [0, 2, 4, 6]
    with pytest.raises(UnfixableError, match="message 4: part 0 is an image: deepseek takes none"):
        dump_messages(conversation, model="deepseek/deepseek-chat")
    applied = dump_messages(conversation, model="deepseek/deepseek-chat", on_unfixable="send")
    assert applied[0]["content"] == "Weather in Paris?\nAnd be brief."
    assert applied[2]["content"] == ""
    assert applied[6]["content"] == ""
    assert applied[7]["content"] == "Say something."
    # The image stays (check reports it: nothing makes a text model see it), and text comes with it, so
    # that litellm sends a string.
    assert applied[4]["content"] == [
        {"type": "image_url", "image_url": {"url": PNG}},
        {"type": "text", "text": "[1 attachment not shown: this model takes no image_url parts]"},
    ]
    assert [(v.rule, v.fixable) for v in profile.check(applied)] == [("unsupported-part", False)]
    assert missing_texts(plain, applied) == []
    # A vision family takes the image as it is.
    vision = dump_messages(conversation, model="deepseek/deepseek-v4-flash")
    assert vision[4]["content"] == [{"type": "image_url", "image_url": {"url": PNG}}]


def test_openai_leaves_tool_images_to_litellm():
    # Quirk 7: litellm's OpenAI route itself moves images out of tool results from 1.98 on
    # (tests/test_profile_litellm.py shows the request it sends); before, the profile moves them.
    dumped = dump_messages(IMAGE_RESULT, model="openai/gpt-4o")
    if TOOL_MEDIA_MOVED.holds():
        assert dumped == dump_messages(IMAGE_RESULT)
    else:
        assert [m["role"] for m in dumped] == ["user", "assistant", "tool", "user", "assistant"]
        assert dumped[3]["content"][1] == {"type": "image_url", "image_url": {"url": PNG}}


def test_ollama_reports_images_by_url():
    # Quirk 51: Ollama wants base64; litellm sends an http URL as it is.
    conversation = [UserMessage(content=[ImagePart(url="https://example.com/cat.png")])]
    (violation,) = get_profile("ollama_chat/llava").check(dump_messages(conversation))
    assert (violation.rule, violation.fixable, violation.row) == ("image-url", False, 51)
    with pytest.raises(UnfixableError, match=r"message 0: ollama_chat takes images inline only"):
        dump_messages(conversation, model="ollama_chat/llava")


# --- order -------------------------------------------------------------------------------------------

ORDER = [
    SystemMessage(content="Be brief."),
    UserMessage(content="One."),
    UserMessage(content="Two."),
    AIMessage(content="Three."),
    SystemMessage(content="Now answer in French."),
    UserMessage(content="Four?"),
    AIMessage(content="Cinq."),
]


def test_consecutive_turns_are_merged_where_turns_must_alternate():
    # Quirk 20 (Perplexity), quirk 53 (chat templates of self-hosted servers), quirk 57 (system messages only
    # before the first turn on Perplexity).
    perplexity = dump_messages(ORDER, model="perplexity/sonar")
    assert perplexity == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "One.\n\nTwo."},
        {"role": "assistant", "content": "Three."},
        {"role": "user", "content": "Now answer in French.\n\nFour?"},
        {"role": "assistant", "content": "Cinq."},
        {"role": "user", "content": "Continue."},  # quirk 61: Perplexity wants a user turn last
    ]
    assert roles(dump_messages(ORDER, model="hosted_vllm/Qwen/Qwen3-8B")) == [
        "system", "user", "assistant", "system", "user", "assistant"
    ]  # fmt: skip
    assert dump_messages(ORDER, model="openai/gpt-4o") == dump_messages(ORDER)


def test_models_without_a_system_role_get_it_as_user_turns():
    # Quirk 8: o1-mini rejects system and developer; quirk 27: Gemma has no system instruction.
    for model in (
        "openai/o1-mini",
        "azure/o1-mini",
        "gemini/gemma-3-27b-it",
        "hosted_vllm/google/gemma-2-9b-it",
    ):
        assert "system" not in roles(dump_messages(ORDER, model=model)), model
    assert "system" in roles(dump_messages(ORDER, model="gemini/gemma-4-31b-it"))


def test_developer_role_becomes_system_where_it_is_rejected():
    # Quirk 9: "Invalid value: 'developer'" on Azure and self-hosted servers.
    conversation = [SystemMessage(role="developer", content="Be brief."), UserMessage(content="Hi")]
    for model in ("azure/gpt-4o", "hosted_vllm/Qwen/Qwen3-8B"):
        assert dump_messages(conversation, model=model)[0]["role"] == "system"
    assert dump_messages(conversation, model="openai/gpt-4o")[0]["role"] == "developer"


def test_groq_gets_system_content_as_a_string():
    # Quirk 38: "'messages.0.content' : value must be a string".
    conversation = [
        SystemMessage(content=[TextPart(text="Be brief."), TextPart(text="Be kind.")]),
        UserMessage(content="Hi"),
    ]
    assert (
        dump_messages(conversation, model="groq/llama-3.3-70b-versatile")[0]["content"]
        == "Be brief.\nBe kind."
    )


@pytest.mark.parametrize(
    ("model", "ends_with_user"),
    [
        ("anthropic/claude-opus-4-6", True),  # quirk 15
        ("anthropic/claude-sonnet-4-6-20260201", True),
        ("anthropic/claude-haiku-4-7", True),
        ("anthropic/claude-sonnet-4-5", False),
        ("anthropic/claude-opus-4-1", False),
        ("bedrock/converse/us.anthropic.claude-opus-4-6-v1:0", True),
        ("bedrock/converse/anthropic.claude-3-7-sonnet-20250219-v1:0", False),
        ("bedrock/converse/meta.llama3-70b-instruct-v1:0", True),  # quirk 47
        ("vertex_ai/claude-opus-4-6@20260201", True),
        ("openrouter/anthropic/claude-opus-4.6", True),
        ("perplexity/sonar", True),  # quirk 61
        ("openai/gpt-4o", False),
    ],
)
def test_a_conversation_ending_on_the_assistant(model, ends_with_user):
    conversation = [UserMessage(content="Write a haiku."), AIMessage(content="Autumn moonlight")]
    applied = dump_messages(conversation, model=model)
    assert (applied[-1] == {"role": "user", "content": "Continue."}) is ends_with_user
    assert applied[:2] == dump_messages(conversation)


def test_mistral_marks_a_final_assistant_text_as_a_prefix_and_only_that():
    # Quirk 31: "Expected last role User or Tool (or Assistant with prefix True)".
    conversation = [UserMessage(content="Write a haiku."), AIMessage(content="Autumn moonlight")]
    applied = dump_messages(conversation, model="mistral/mistral-large-latest")
    assert applied[-1] == {"role": "assistant", "content": "Autumn moonlight", "prefix": True}
    continued = get_profile("mistral").apply([*applied, {"role": "user", "content": "Go on"}])
    assert "prefix" not in continued[1]


def test_mistral_gets_a_user_turn_after_a_final_system_message():
    # Quirk 31: "Expected last role User or Tool (or Assistant with prefix True) for serving but got
    # system"; the instruction keeps its role and place, and a user turn follows it.
    conversation = [
        UserMessage(content="Hello."),
        SystemMessage(content="From now on, answer in one sentence."),
    ]
    profile = get_profile("mistral/mistral-large-latest")
    assert [(v.index, v.rule, v.row) for v in profile.check(dump_messages(conversation))] == [
        (1, "system-last", 31)
    ]
    assert [m["role"] for m in profile.apply(dump_messages(conversation))] == ["user", "system", "user"]
    applied = dump_messages(conversation, model="mistral/mistral-large-latest")
    assert applied == [*dump_messages(conversation), {"role": "user", "content": "Continue."}]
    assert profile.check(applied) == []
    assert dump_messages(conversation, model="openai/gpt-4o") == dump_messages(conversation)


def test_mistral_gets_a_system_message_after_a_reply_as_a_user_message():
    # Quirk 80: "Unexpected role 'system' after role 'assistant'" (mistral-common's validator; after a tool
    # result too). The text is kept whole, as a user message; a system message after a user keeps its role.
    conversation = [
        UserMessage(content="Hello."),
        AIMessage(content="Hello! How can I help?"),
        SystemMessage(content="From now on, answer in one sentence."),
        SystemMessage(content="And in French."),
        UserMessage(content="Time?"),
    ]
    profile = get_profile("mistral/mistral-large-latest")
    assert [(v.index, v.rule, v.row) for v in profile.check(dump_messages(conversation))] == [
        (2, "system-after-reply", 80)
    ]
    applied = profile.apply(dump_messages(conversation))
    assert [m["role"] for m in applied] == ["user", "assistant", "user", "system", "user"]
    assert applied[2]["content"] == "From now on, answer in one sentence."
    assert profile.check(applied) == []


def test_tool_results_followed_by_a_user_get_an_assistant_turn_between_on_mistral_and_bedrock():
    # Quirk 31: "Unexpected role 'user' after role 'tool'"; quirk 44: "Conversation blocks and tool result
    # blocks cannot be provided in the same turn".
    conversation = [
        UserMessage(content="Go"),
        AIMessage(tool_calls=[call("call_1")]),
        ToolMessage(tool_call_id="call_1", content="rain"),
        UserMessage(content="Thanks"),
    ]
    for model in ("mistral/mistral-large-latest", "bedrock/converse/meta.llama3-70b-instruct-v1:0"):
        applied = dump_messages(conversation, model=model)
        assert roles(applied) == ["user", "assistant", "tool", "assistant", "user"], model
        assert applied[3] == {"role": "assistant", "content": "OK."}
        assert "tool-then-user" in {v.rule for v in get_profile(model).check(dump_messages(conversation))}


def test_a_conversation_of_system_messages_only_gets_a_user_turn_on_anthropic():
    # Quirk 19: after hoisting the system prompt the message list would be empty.
    applied = dump_messages([SystemMessage(content="Be brief.")], model="anthropic/claude-sonnet-4-5")
    assert applied == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Continue."}]


def test_bedrock_and_gemini_start_with_a_user_turn():
    # Quirk 41: "A conversation must start with a user message"; quirk 24: a function call must follow a
    # user turn.
    conversation = [
        SystemMessage(content="s"),
        AIMessage(tool_calls=[call("call_1")]),
        ToolMessage(tool_call_id="call_1", content="x"),
    ]
    for model in ("bedrock/converse/x", "gemini/gemini-2.5-flash"):
        assert roles(dump_messages(conversation, model=model))[:3] == ["system", "user", "assistant"]


def test_perplexity_gets_tool_exchanges_as_text_and_loses_nothing():
    # Quirk 61: no tool role and no tool calls on Perplexity's chat API.
    conversation = [
        UserMessage(content="Weather in Paris and Oslo?"),
        AIMessage(content="Checking.", tool_calls=[call("call_1"), call("call_2", '{"city":"Oslo"}')]),
        ToolMessage(tool_call_id="call_2", content="snow"),
        ToolMessage(tool_call_id="call_1", content=[TextPart(text="rain"), ImagePart(url=PNG)]),
        AIMessage(content="Rain and snow."),
        UserMessage(content="Thanks"),
    ]
    applied = dump_messages(conversation, model="perplexity/sonar")
    assert applied == [
        {"role": "user", "content": "Weather in Paris and Oslo?"},
        {
            "role": "assistant",
            "content": 'Checking.\n\nCalled tool get_weather with {"city":"Paris"} (call call_1).\n'
            'Called tool get_weather with {"city":"Oslo"} (call call_2).',
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Result of tool call call_2 (get_weather):\nsnow"},
                {"type": "text", "text": "Result of tool call call_1 (get_weather):"},
                {"type": "text", "text": "rain"},
                {"type": "image_url", "image_url": {"url": PNG}},
            ],
        },
        {"role": "assistant", "content": "Rain and snow."},
        {"role": "user", "content": "Thanks"},
    ]
    assert get_profile("perplexity").check(applied) == []
    assert missing_texts(dump_messages(conversation), applied) == []


def test_refusals_reach_the_model_as_text():
    # Quirk 5: OpenAI allows content null only beside tool calls; other providers do not know `refusal`.
    conversation = [
        UserMessage(content="Do it."),
        AIMessage(refusal="I can't help with that."),
        UserMessage(content="ok"),
    ]
    openai = dump_messages(conversation, model="openai/gpt-4o")[1]
    assert openai == {
        "role": "assistant",
        "content": "I can't help with that.",
        "refusal": "I can't help with that.",
    }
    for model in ("mistral/mistral-large-latest", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.5-flash"):
        assert dump_messages(conversation, model=model)[1] == {
            "role": "assistant",
            "content": "I can't help with that.",
        }


# --- resolution --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "name", "is_default"),
    [
        ("openai/gpt-4o-mini", "openai", False),
        ("gpt-4o-mini", "openai", False),
        ("o1-mini", "openai:o1-mini", False),
        ("openai/o1-mini-2024-09-12", "openai:o1-mini", False),
        ("azure/o1-preview", "azure:o1-preview", False),
        ("claude-sonnet-4-5", "anthropic", False),
        ("anthropic/claude-opus-4-6", "anthropic:claude-opus-4-6", False),
        ("gemini-2.5-flash", "vertex_ai:gemini", False),  # litellm sends bare Gemini names to Vertex AI
        ("gemini/gemini-2.5-flash", "gemini", False),
        ("gemini/gemma-3-27b-it", "gemini:gemma", False),
        ("gemini/gemini-gemma-2-9b-it", "gemini:gemini-gemma", False),
        ("gemini/gemma-4-31b-it", "gemini:gemma-4", False),
        ("vertex_ai/claude-sonnet-4-6@20260101", "vertex_ai:claude-sonnet-4-6", False),
        ("vertex_ai_beta/gemini-2.5-pro", "vertex_ai:gemini", False),
        ("bedrock/converse/us.anthropic.claude-opus-4-6-v1:0", "bedrock:claude-opus-4-6", False),
        ("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock:claude-3-5-sonnet-20240620", False),
        ("anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock:claude-3-5-sonnet-20240620", False),
        ("bedrock/converse/anthropic.claude-3-5-sonnet-20241022-v2:0", "bedrock:claude", False),
        ("bedrock_converse/mistral.mistral-large-2402-v1:0", "bedrock:mistral", False),
        ("openrouter/anthropic/claude-opus-4.6", "openrouter:claude-opus-4-6", False),
        ("openrouter/mistralai/mistral-large", "openrouter:mistral", False),
        ("deepseek/deepseek-reasoner", "deepseek:deepseek-reasoner", False),
        ("deepseek-chat", "deepseek", False),
        ("mistral-large-latest", "mistral", False),
        ("groq/llama-3.2-90b-vision-preview", "groq:llama-3-2-90b-vision", False),
        ("ollama_chat/llama3.1", "ollama_chat", False),
        ("perplexity", "perplexity", False),
        ("hosted_vllm/mistralai/Mistral-7B-Instruct-v0.3", "openai_compatible:mistral", True),
        ("lm_studio/qwen3-8b", "openai_compatible", True),
        ("some_new_provider/model-x", "some_new_provider", True),
    ],
)
def test_model_strings_resolve_to_the_provider_then_the_longest_family(model, name, is_default):
    profile = get_profile(model)
    assert (profile.name, profile.is_default) == (name, is_default)


@pytest.mark.litellm
@pytest.mark.parametrize(
    "model",
    [
        "gpt-4o-mini",
        "claude-sonnet-4-5",
        "gemini-2.5-flash",
        "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "amazon.nova-pro-v1:0",
    ],
)
def test_the_plain_fallback_agrees_with_litellm_where_litellm_knows_the_name(litellm, model):
    from messages.profiles._registry import _bare_provider

    assert _bare_provider(model) == litellm.get_llm_provider(model=model)[1]


def test_resolution_works_without_litellm():
    # The prefix fallback alone (litellm made unimportable in a fresh interpreter).
    code = """
import sys, json
sys.modules["litellm"] = None
from messages import get_profile
models = ("gemini-2.5-flash", "claude-opus-4-6", "grok-3", "my-local-model")
print(json.dumps([get_profile(m).name for m in models]))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == ["vertex_ai:gemini", "anthropic:claude-opus-4-6", "xai", "openai_compatible"]


def test_prefixed_model_strings_resolve_without_importing_litellm():
    code = """
import sys
from messages import UserMessage, dump_messages, get_profile
get_profile("gemini/gemini-2.5-flash"); get_profile("hosted_vllm/x"); get_profile("mistral")
dump_messages([UserMessage(content="hi")], model="bedrock/converse/us.anthropic.claude-opus-4-6-v1:0")
print("litellm" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_resolution_is_cached_and_registering_clears_the_cache(restored_registry):
    assert get_profile("openai/gpt-4o") is get_profile("openai/gpt-4o")
    provider = f"test_proxy_{uuid.uuid4().hex[:8]}"
    before = get_profile(f"{provider}/model-a")
    assert before.is_default
    mine = Profile(provider, (ToolCallIds(ids=IdRule(max_length=16)),))
    register_profile(mine)
    assert get_profile(f"{provider}/model-a") is mine
    family = mine.with_family("model-a", NoPrefill())
    register_profile(family)
    assert get_profile(f"{provider}/model-a-large") is family
    assert get_profile(f"{provider}/model-b") is mine
    assert family in registered_profiles()


def test_strict_resolution_names_the_unknown_provider():
    with pytest.raises(UnknownProfileError, match="no profile is registered for provider 'nope'") as caught:
        get_profile("nope/model", strict=True)
    assert isinstance(caught.value, KeyError)
    assert "openai, openai_compatible" in str(caught.value)


@pytest.mark.parametrize(
    ("bad", "error"), [("", ValueError), ("  ", ValueError), (None, TypeError), (3, TypeError)]
)
def test_bad_names_are_refused(bad, error):
    with pytest.raises(error):
        get_profile(bad)


def test_register_profile_takes_only_profiles():
    with pytest.raises(TypeError, match="takes a Profile"):
        register_profile({"provider": "x"})  # type: ignore[arg-type]


def test_profiles_need_a_provider_rules_and_known_roles():
    with pytest.raises(ValueError, match="needs a provider"):
        Profile(provider="")
    with pytest.raises(ValueError, match="unknown roles"):
        Profile("x", (KnownKeys(extra={"robot": frozenset({"x"})}),))
    with pytest.raises(ValueError, match="two 'prefill' rules"):
        Profile("x", (NoPrefill(), NoPrefill(text="Go on.")))
    with pytest.raises(TypeError, match=r"Rule objects .* rule 0 is a dict"):
        Profile("x", ({"id": "prefill"},))  # type: ignore[arg-type]


def test_a_profile_is_derived_by_replacing_adding_and_removing_rules():
    base = get_profile("mistral")
    derived = base.with_rules(NoPrefill(row=15), ToolCallIds(ids=IdRule(max_length=64)), without=("prefix",))
    assert derived.rule("prefix") is None
    assert derived.rule("prefill") == NoPrefill(row=15)
    assert derived.tool_call_ids == IdRule(max_length=64)
    assert [r.id for r in derived.rules if r.id != "prefill"] == [
        r.id for r in base.rules if r.id != "prefix"
    ]
    assert base.rule("prefix") is not None  # the profile it came from is unchanged


def test_a_profile_refuses_what_is_not_a_rule_naming_the_argument_and_the_position():
    base = get_profile("mistral")
    with pytest.raises(InvalidArgumentError, match="rule 1 is a int") as refused:
        base.with_rules(NoPrefill(row=15), 5)  # type: ignore[arg-type]
    assert (refused.value.argument, refused.value.index) == ("rules", 1)
    with pytest.raises(InvalidArgumentError, match=r"without=\['prefix'\]") as refused:
        base.with_family("small", without="prefix")
    assert refused.value.argument == "without"
    with pytest.raises(InvalidArgumentError, match="not a PartTable") as refused:
        base.with_rules(parts={"user": "text"})  # type: ignore[arg-type]
    assert refused.value.argument == "parts"
    with pytest.raises(InvalidArgumentError, match="needs a provider name") as refused:
        Profile("", ())
    assert refused.value.argument == "provider"
    assert base.with_rules().rules == base.rules  # nothing given: the same rules


# --- dump_messages and the package -------------------------------------------------------------------


def test_dump_messages_applies_the_profile_of_the_model_or_the_one_given():
    conversation = [UserMessage(content=""), AIMessage(content="Hi")]
    plain = dump_messages(conversation)
    assert dump_messages(conversation, model="mistral/mistral-small") == get_profile("mistral").apply(plain)
    assert dump_messages(conversation, profile="mistral") == get_profile("mistral").apply(plain)
    mine = Profile("mine", (NoPrefill(),))
    assert dump_messages(conversation, model="openai/gpt-4o", profile=mine) == mine.apply(plain)


def test_violations_read_as_sentences():
    violation = Violation(3, "tool-call-id", 30, "tool-call id 'call_1' breaks mistral's id rule")
    assert str(violation) == (
        "message 3: tool-call id 'call_1' breaks mistral's id rule "
        "[tool-call-id, quirk 30: messages quirks 30, "
        "https://llm-messages.github.io/llm-messages/quirks/#quirk-30]"
    )
    assert str(Violation(None, "empty-conversation", 12, "empty", fixable=False)) == (
        "the conversation: empty [empty-conversation, quirk 12: messages quirks 12, "
        "https://llm-messages.github.io/llm-messages/quirks/#quirk-12]"
    )
    assert str(Violation(None, "x", None, "y")) == "the conversation: y [x]"


def _profile_modules() -> list[str]:
    package = messages.profiles
    return sorted(
        m.name
        for m in pkgutil.iter_modules(package.__path__)
        if not m.name.startswith("_") and m.name != "rules"
    )


def test_every_profile_module_is_registered():
    assert _profile_modules() == sorted(BUILTIN_MODULES)
    registered = {p.provider for p in registered_profiles()}
    for name in BUILTIN_MODULES:
        module = importlib.import_module(f"messages.profiles.{name}")
        assert module.PROFILE.provider in registered
        assert module.PROFILE.family is None


QUIRK_ROWS = frozenset(QUIRKS)
"""The rows of the quirk catalog the package ships (``messages.quirks``)."""


def _row_numbers(text: str) -> list[int]:
    # A row number stands alone: not part of a name (gemma-4, V3.1) or a longer number.
    return [int(n) for n in re.findall(r"(?<![\w.-])(\d{1,2})(?![\w.-])", text)]


def documented_rows(doc: str) -> tuple[set[int], set[int]]:
    """The rows a profile module's docstring says it implements, and those it leaves to litellm.

    Implements: the numbers heading a bullet (``* 7 and 36: ...``), those after "row" or "rows", and
    those opening a parenthesized list (``the Gemini rules (23, 24, 25; see ...)``). Left to litellm: the
    items of its list that are row numbers (``19 and 26 (system-only requests), 24 (...)``). Names in
    double backticks are not read, so that no quantity or model version counts as a row.
    """
    doc = re.sub(r"``.*?``", "", doc, flags=re.S)
    implements = doc[doc.index("Implements") : doc.index("Left to litellm")]
    left = doc[doc.index("Left to litellm") :]
    rows: set[int] = set()
    for line in implements.splitlines():
        head = re.match(r"\s*\* (.*?):", line)
        if head:
            rows.update(_row_numbers(head.group(1)))
    for group in re.findall(r"\b(?:rows?|quirks?) ((?:\d{1,2}(?:,? and |, | with )?)+)", implements):
        rows.update(_row_numbers(group))
    for group in re.findall(r"\(([^()]*)\)", implements):
        lead = re.match(r"\s*\d{1,2}(?:\s*(?:,|and)\s*\d{1,2})*", group)
        if lead:
            rows.update(_row_numbers(lead.group(0)))
    while re.search(r"\([^()]*\)", left):
        left = re.sub(r"\([^()]*\)", "", left)
    left_rows = {
        n
        for item in re.split(r"[,.;:]", left)
        if re.fullmatch(r"\s*\d{1,2}(?:\s+and\s+\d{1,2})*\s*", item)
        for n in _row_numbers(item)
    }
    return rows, left_rows


def test_the_row_parser_reads_rows_not_quantities():
    doc = """x.

    Implements (quirks, ``messages quirks N``):

    * 3: ids of at most 40 characters, exactly 9 letters (``gemma-4``, V3.1);
    * 7 and 36: images moved (row 54 too);
    * the Gemini rules (23, 24; see ``gemini``), not 400 or 64.

    Left to litellm: 19 and 26 (system-only, row 12), 25 (signatures). Not fixable here: 11, 2 parts.
    """
    assert documented_rows(doc) == ({3, 7, 36, 54, 23, 24}, {19, 26, 25, 11})


def test_each_module_docstring_lists_real_rows_and_every_row_its_profiles_cite():
    for name in BUILTIN_MODULES:
        module = importlib.import_module(f"messages.profiles.{name}")
        profiles = [module.PROFILE, *getattr(module, "FAMILIES", {}).values()]
        # The rows a profile sets on its rules (a rule's own default, such as the refusal rule's quirk 5, is
        # the same for every provider, and documented with the rule).
        cited = {r.row for p in profiles for r in p.rules if r.row is not None and r.row != type(r)().row}
        # And the rows of its table of parts (those a kind has whatever the table, video 72 and refusals 5,
        # are documented with the table).
        cells = [c for p in profiles for c in (p.parts.system, p.parts.user, p.parts.assistant, p.parts.tool)]
        cited |= {c.row for c in cells if c.row is not None} | {r for c in cells for r in c.rows.values()}
        doc = module.__doc__ or ""
        assert "Implements (quirks, ``messages quirks N``)" in doc, name
        assert "Left to litellm" in doc, name
        implemented, left = documented_rows(doc)
        assert implemented, name
        assert implemented | left <= QUIRK_ROWS, (name, sorted((implemented | left) - QUIRK_ROWS))
        assert cited <= implemented, (name, sorted(cited - implemented))


def test_family_keys_are_written_as_they_are_matched():
    for profile in registered_profiles():
        if profile.family is not None:
            assert profile.family == profile.family.lower(), profile.name
            assert not re.search(r"\d\.\d", profile.family), profile.name


def test_rules_never_name_a_provider():
    # Nothing outside a provider's own module tests `provider == "x"`: provider knowledge lives in the
    # provider's module, rules are parameterized by it.
    for module in (
        "_rule",
        "_plan",
        "_profile",
        "_ids",
        "rules.keys",
        "rules.calls",
        "rules.content",
        "rules.order",
        "rules.extensions",
    ):
        path = Path(importlib.import_module(f"messages.profiles.{module}").__file__)
        source = ast.unparse(ast.parse(path.read_text()))
        for provider in BUILTIN_MODULES:
            assert f"== '{provider}'" not in source, (module, provider)


def test_apply_of_an_unchanged_list_passes_the_same_messages_on():
    conversation = dump_messages([UserMessage(content="Hi"), AIMessage(content="Hello")])
    applied = get_profile("openai").apply(conversation)
    assert applied == conversation
    assert all(a is b for a, b in zip(applied, conversation, strict=True))
    assert protocol_problems(applied) == []


def test_import_messages_loads_the_profiles_only_when_asked():
    code = """
import sys, messages
before = "messages.profiles" in sys.modules
from messages import get_profile
print(before, "messages.profiles" in sys.modules, get_profile("mistral").provider)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "mistral"]


# --- Gemini: identical parallel calls (quirk 24) ---------------------------------------------------------


@pytest.mark.parametrize(
    "model", ["gemini/gemini-2.5-flash", "gemini/gemma-3-27b-it", "vertex_ai/gemini-2.5-pro"]
)
def test_gemini_gets_identical_parallel_calls_one_per_turn(model):
    # Quirk 24: litellm sends two calls of one tool with equal arguments as one functionCall part but both
    # functionResponse parts, which Gemini rejects. Each repeat gets its own turn after the results
    # before it; ids, arguments, results and their pairing are kept. Equal arguments means equal once
    # decoded, as litellm compares them.
    conversation = [
        UserMessage(content="Read the clock three times."),
        AIMessage(
            content="Reading.",
            tool_calls=[
                call("c1", "{}", name="get_time"),
                call("c2", '{"city": "Paris"}'),
                call("c3", "{ }", name="get_time"),
                call("c4", "{}", name="get_time"),
            ],
        ),
        ToolMessage(tool_call_id="c2", content="rain"),
        ToolMessage(tool_call_id="c1", content="12:00:01"),
        ToolMessage(tool_call_id="c3", content="12:00:02"),
        ToolMessage(tool_call_id="c4", content="12:00:03"),
        UserMessage(content="Thanks."),
    ]
    profile = get_profile(model)
    dumped = dump_messages(conversation)
    assert fixable(profile, dumped) == ["identical-calls"]
    applied = dump_messages(conversation, model=model)
    shape = [
        [c["id"] for c in m["tool_calls"]] if m.get("tool_calls") else m.get("tool_call_id") or m["role"]
        for m in applied
    ]
    assert shape == ["user", ["c1", "c2"], "c2", "c1", ["c3"], "c3", ["c4"], "c4", "user"]
    assert applied[1]["content"] == "Reading."
    assert applied[4] == {"role": "assistant", "content": None, "tool_calls": [dumped[1]["tool_calls"][2]]}
    assert pairing(applied) == pairing(dumped) == [1, 0, 2, 3]
    assert protocol_problems(applied) == []
    assert fixable(profile, applied) == []
    assert profile.apply(applied) == applied


def test_only_gemini_routes_split_identical_calls():
    conversation = [
        UserMessage(content="Twice."),
        AIMessage(tool_calls=[call("c1", "{}"), call("c2", "{}")]),
        ToolMessage(tool_call_id="c1", content="a"),
        ToolMessage(tool_call_id="c2", content="b"),
    ]
    for model in ("openai/gpt-4o", "anthropic/claude-sonnet-4-5", "vertex_ai/claude-sonnet-4-5"):
        assert len(dump_messages(conversation, model=model)) == 4, model


# --- an assistant turn with neither text nor calls (quirks 5, 53) ----------------------------------------


@pytest.mark.parametrize(
    ("model", "row"),
    [("openai/gpt-4o", 5), ("azure/gpt-4o", 5), ("openai/o1-mini", 5), ("hosted_vllm/Qwen/Qwen3-8B", 53)],
)
def test_an_assistant_turn_saying_nothing_is_sent_as_empty_text_where_null_is_rejected(model, row):
    # Quirk 5: OpenAI allows content null only beside tool calls ("expected a string, got null"); quirk 53:
    # template servers need a string. A typed AIMessage(content=None) with no calls (after a
    # reasoning-only reply) dumps as null; the turn is kept, with "".
    conversation = [
        UserMessage(content="hi"),
        AIMessage(content=None, reasoning_content="thinking only"),
        UserMessage(content="again?"),
    ]
    profile = get_profile(model)
    dumped = dump_messages(conversation)
    assert [(v.index, v.row) for v in profile.check(dumped) if v.rule == "null-content"] == [(1, row)]
    applied = dump_messages(conversation, model=model)
    assistant = [m for m in applied if m["role"] == "assistant"]
    assert [m["content"] for m in assistant] in ([""], [])
    assert profile.check(applied) == []
    assert profile.apply(applied) == applied


def test_a_turn_beside_calls_keeps_content_null_on_openai():
    # Quirk 5 allows null beside tool calls: nothing to change there.
    conversation = [
        UserMessage(content="hi"),
        AIMessage(content=None, tool_calls=[call("call_1")]),
        ToolMessage(tool_call_id="call_1", content="sun"),
    ]
    assert dump_messages(conversation, model="openai/gpt-4o")[1]["content"] is None


@pytest.mark.parametrize("model", ["openai/gpt-4o", "azure/gpt-4o"])
def test_a_text_over_openais_limit_is_reported_and_kept(model):
    # Quirk 83: "string too long. Expected a string with maximum length 10485760". The limit counts
    # characters; the plain user text and the plain tool result would take the pass's fast path if the
    # pass did not measure long strings.
    limit = 10_485_760
    over, at = "é" * (limit + 1), "x" * limit
    conversation = [
        UserMessage(content=over),
        AIMessage(content=None, tool_calls=[call("call_1")]),
        ToolMessage(tool_call_id="call_1", content=over),
        UserMessage(content=[TextPart(text="look"), TextPart(text=over)]),
        AIMessage(content=at),
    ]
    profile = get_profile(model)
    dumped = dump_messages(conversation)
    found = [v for v in profile.check(dumped) if v.rule == "text-length"]
    assert [(v.index, v.row, v.fixable) for v in found] == [(0, 83, False), (2, 83, False), (3, 83, False)]
    assert "text part 1 has 10,485,761 characters" in found[2].message
    with pytest.raises(UnfixableError) as refused:  # refused before the request, never cut
        dump_messages(conversation, model=model)
    assert [v.index for v in refused.value.violations] == [0, 2, 3]
    applied = dump_messages(conversation, model=model, on_unfixable="send")
    assert [m["content"] for m in applied] == [m["content"] for m in dumped]
    claude = get_profile("anthropic/claude-sonnet-4-5")
    assert not [v for v in claude.check(dumped) if v.rule == "text-length"]


def test_a_text_over_the_limit_is_named_by_its_place_in_the_content():
    # A part that is not a dict (a list given by hand, not dumped) still counts in the index reported.
    over = "x" * (10_485_760 + 1)
    given = [{"role": "user", "content": ["stray", {"type": "text", "text": over}]}]
    (found,) = [v for v in get_profile("openai/gpt-4o").check(given) if v.rule == "text-length"]
    assert "text part 1 has 10,485,761 characters" in found.message


def test_a_text_limit_below_what_the_pass_measures_is_refused():
    with pytest.raises(ValueError, match="at least 1,048,576 characters"):
        TextLength(limit=4096)


@pytest.mark.parametrize("model", ["gemini/gemini-2.5-flash", "vertex_ai/gemini-2.5-pro"])
def test_gemini_sends_a_space_for_a_user_turn_of_no_parts(model):
    # Quirks 23 and 24: litellm drops a user turn whose content is [] (no parts), and the function-call
    # turn after it then comes first ("function call turn comes immediately after a user turn").
    conversation = [
        UserMessage(content=[]),
        AIMessage(tool_calls=[call("c1", "{}", name="get_time")]),
        ToolMessage(tool_call_id="c1", content="12:00"),
        UserMessage(content="ok"),
    ]
    profile = get_profile(model)
    assert [(v.index, v.rule, v.row) for v in profile.check(dump_messages(conversation))] == [
        (0, "empty-text", 23)
    ]
    applied = dump_messages(conversation, model=model)
    assert applied[0] == {"role": "user", "content": " "}
    assert profile.check(applied) == []


def test_no_parts_count_as_no_text_where_blank_turns_are_dropped():
    # Quirks 13, 43: Anthropic and Bedrock drop a blank turn; [] is one.
    conversation = [UserMessage(content=[]), AIMessage(content="Hello."), UserMessage(content="Hi")]
    for model in ("anthropic/claude-sonnet-4-5", "bedrock/converse/meta.llama3-70b-instruct-v1:0"):
        applied = dump_messages(conversation, model=model)
        assert [m["content"] for m in applied if m["role"] == "user"][-1] == "Hi", model
        assert all(m["content"] != [] for m in applied), model


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("anthropic/claude-opus-4-6", "claude-opus-4-6"),
        ("anthropic/claude-opus-4-6-20260101", "claude-opus-4-6"),
        ("anthropic/claude-opus-4.6", "claude-opus-4-6"),
        ("anthropic/claude-opus-4-60", None),
        ("anthropic/claude-opus-4-6x", None),
        ("bedrock/converse/us.anthropic.claude-opus-4-6-v1:0", "claude-opus-4-6"),
        ("gemini/gemma-3-27b-it", "gemma"),
        ("openai/o1-mini", "o1-mini"),
        ("openai/o1-mini-2024-09-12", "o1-mini"),
        ("hosted_vllm/mistralai/Mistral-7B-Instruct-v0.3", "mistral"),
    ],
)
def test_a_family_key_ends_where_a_name_part_ends(model, family):
    # Quirk 15: the prefill rule is for Claude 4.6 and later; a longer version number is another model.
    assert get_profile(model).family == family


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        # Quirk 8: o1-mini takes no system role, however it is reached.
        ("openrouter/openai/o1-mini", "openrouter:o1-mini"),
        ("azure_ai/o1-mini", "azure:o1-mini"),
        ("azure_ai/gpt-4o", "azure"),
        # Quirk 30: Mistral's models on Vertex AI take Mistral's 9-character ids, not Gemini's any id.
        ("vertex_ai/mistral-large-2411", "vertex_ai:mistral"),
        ("vertex_ai/codestral-2501", "vertex_ai:codestral"),
    ],
)
def test_family_rules_reach_the_models_behind_other_providers(model, expected):
    profile = get_profile(model)
    assert profile.name == expected
    conversation = [
        SystemMessage(content="Be brief."),
        UserMessage(content="Time?"),
        AIMessage(tool_calls=[call("call_0123456789abcdef", "{}", name="get_time")]),
        ToolMessage(tool_call_id="call_0123456789abcdef", content="12:00"),
    ]
    applied = dump_messages(conversation, model=model)
    if "o1-mini" in model:
        assert applied[0] == {"role": "user", "content": "Be brief."}
    if "vertex_ai/" in model:
        assert IdRule(alphabet="a-zA-Z0-9", min_length=9, max_length=9).accepts(
            applied[2]["tool_calls"][0]["id"]
        )
    assert [v for v in profile.check(applied) if v.fixable] == []


# --- the tables of parts (issue 24) ------------------------------------------------------------------


def test_every_rule_a_table_relies_on_is_in_the_profile():
    # A kind taken "via" a rule (Gemini's video parts, tool-result media moved to a user message) is taken
    # only because that rule is there: the table may not claim it otherwise.
    for profile in registered_profiles():
        ids = {r.id for r in profile._plan.rules}
        for role in ("system", "user", "assistant", "tool"):
            cell = profile.parts.role(role)
            assert cell is not None
            assert set(cell.via.values()) <= ids, (profile.name, role, cell.via)
            assert cell.source, (profile.name, role)


def test_a_part_the_table_does_not_take_is_refused_with_the_tables_row():
    profile = get_profile("cohere/command-r-plus")
    for role, part, row in [
        ("user", {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}, 84),
        ("user", {"type": "video_url", "video_url": {"url": "https://example.com/v.mp4"}}, 72),
        ("assistant", {"type": "image_url", "image_url": {"url": PNG}}, 84),
        ("system", {"type": "image_url", "image_url": {"url": PNG}}, 85),
    ]:
        message = {"role": role, "content": [{"type": "text", "text": "see"}, part]}
        messages = [message] if role != "assistant" else [{"role": "user", "content": "hi"}, message]
        (found,) = [v for v in profile.check(messages) if v.rule == "unsupported-part"]
        assert (found.index, found.row, found.fixable) == (len(messages) - 1, row, False), role
        assert found.message.startswith("part 1 is "), found.message


def test_unknown_part_types_and_keys_are_refused_where_a_table_screens():
    profile = get_profile("openai/gpt-4o")
    odd = [
        {"role": "user", "content": [{"type": "txt", "text": "typo"}]},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": PNG, "foo": 1}}]},
    ]
    found = [(v.index, v.message.split(":")[0]) for v in profile.check(odd) if v.rule == "unsupported-part"]
    assert found == [
        (0, "part 0 is a part of type 'txt'"),
        (1, "part 0 (image_url) has keys no route reads (image_url.foo)"),
    ]
    with pytest.raises(UnfixableError):
        profile.apply(odd)
    # A profile of your own takes everything, unless given a table.
    assert Profile("my_proxy").apply(odd) == odd


def test_a_family_whose_system_messages_become_user_turns_takes_what_a_user_turn_takes():
    o1 = get_profile("openai/o1-mini")
    image = {"type": "image_url", "image_url": {"url": PNG}}
    sent = o1.apply([{"role": "system", "content": [{"type": "text", "text": "see"}, image]}])
    assert sent[0]["role"] == "user"
    system_image = [{"role": "system", "content": [image]}]
    assert not [v for v in o1.check(system_image) if v.rule == "unsupported-part"]
    # OpenAI's other models keep the system role, which takes text only (quirk 85).
    (refused,) = [v for v in get_profile("openai/gpt-4o").check(system_image) if v.rule == "unsupported-part"]
    assert (refused.row, refused.fixable) == (85, False)


# --- rules for the litellm releases that behave otherwise (messages._litellm) --------------------------

ENDS_ON_SYSTEM = [
    {"role": "user", "content": "Hello."},
    {
        "role": "assistant",
        "content": "Hi.",
        "thinking_blocks": [{"type": "thinking", "thinking": "t", "signature": "s"}],
    },
    {"role": "system", "content": "Answer in French."},
]


def test_where_litellm_hoists_system_messages_a_conversation_ending_on_one_ends_on_the_turn_before():
    # Anthropic and Bedrock before litellm 1.104 send every system message in the system prompt: the
    # assistant text before a trailing system message is then the last turn sent (a prefill, quirk 15), and
    # its thinking is on the final turn (quirk 18).
    no_prefill = Profile("claude-4-6", (NoPrefill(row=15, hoisted=True),))
    applied = no_prefill.apply(ENDS_ON_SYSTEM)
    assert [m["role"] for m in applied] == ["user", "assistant", "system", "user"]
    assert no_prefill.apply(applied) == applied
    prefill = Profile("claude", (FinalThinking(row=18, hoisted=True),))  # a prefill, thinking left out
    assert prefill.apply(ENDS_ON_SYSTEM) == [
        ENDS_ON_SYSTEM[0],
        {"role": "assistant", "content": "Hi."},
        ENDS_ON_SYSTEM[2],
    ]
    # Where the route sends a late system message as a user turn (1.104 on), the list is left as it is.
    as_user = Profile("claude", (NoPrefill(row=15), FinalThinking(row=18)))
    assert as_user.apply(ENDS_ON_SYSTEM) == ENDS_ON_SYSTEM


def test_where_litellm_hoists_system_messages_assistant_turns_around_one_are_merged_thinking_first():
    # Found by the conformance property at the floor (litellm 1.82.2): with the system message between them
    # sent in the system prompt, litellm's Anthropic converter merges the two assistant turns, the second
    # one's thinking after the first one's text, which Anthropic refuses (quirk 18).
    thinking = [{"type": "redacted_thinking", "data": "Eqq+hQ0VaW29"}]
    conversation = [
        {"role": "user", "content": "Hello."},
        {"role": "assistant", "content": "Hi."},
        {"role": "developer", "content": "Answer in French."},
        {"role": "assistant", "content": "Bonjour.", "thinking_blocks": thinking},
        {"role": "user", "content": "Merci."},
    ]
    hoisted = Profile("claude", (ThinkingOrder(row=18, hoisted=True),))
    applied = hoisted.apply(conversation)
    assert [m["role"] for m in applied] == ["user", "assistant", "developer", "user"]
    assert applied[1]["thinking_blocks"] == thinking
    assert applied[1]["content"] == "Hi.\n\nBonjour."
    assert applied[2] == conversation[2]  # the system message kept, after the merged turn
    assert hoisted.apply(applied) == applied
    # Where the route sends the system message where it stands (1.104 on), nothing is merged.
    assert Profile("claude", (ThinkingOrder(row=18),)).apply(conversation) == conversation


def test_redacted_thinking_is_left_out_and_the_signed_thinking_kept():
    # Bedrock before litellm 1.85 gets a redacted thinking block as an empty text block (quirk 48).
    blocks = [
        {"type": "redacted_thinking", "data": "YWJj"},
        {"type": "thinking", "thinking": "t", "signature": "s"},
    ]
    turn = {"role": "assistant", "content": "Hi.", "thinking_blocks": blocks}
    profile = Profile("bedrock_old", (RedactedThinking(row=48),))
    [violation] = profile.check([turn])
    assert (violation.rule, violation.row) == ("redacted-thinking", 48)
    assert profile.apply([turn]) == [{**turn, "thinking_blocks": blocks[1:]}]
    only_redacted = {**turn, "thinking_blocks": blocks[:1]}
    assert profile.apply([only_redacted]) == [{"role": "assistant", "content": "Hi."}]


def test_bedrock_claude_without_prompt_caching_gets_no_cache_marks_on_any_litellm():
    # Quirk 75: Bedrock refuses a cachePoint on a model without prompt caching; litellm leaves it out from
    # 1.101 on, earlier releases send it. Before 1.101 only the Claude models that cache keep their marks.
    from messages.profiles.bedrock import CACHES_EVERY_MODEL

    marked = [
        {"role": "user", "content": [{"type": "text", "text": "Hi.", "cache_control": {"type": "ephemeral"}}]}
    ]
    june = get_profile("bedrock/converse/anthropic.claude-3-5-sonnet-20240620-v1:0").apply(marked)
    assert "cache_control" not in json.dumps(june)
    sonnet = get_profile("bedrock/converse/us.anthropic.claude-sonnet-4-5-20250929-v1:0").apply(marked)
    assert "cache_control" in json.dumps(sonnet)
    llama = get_profile("bedrock/converse/meta.llama3-1-70b-instruct-v1:0").apply(marked)
    assert ("cache_control" in json.dumps(llama)) is not CACHES_EVERY_MODEL
