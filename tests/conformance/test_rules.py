"""The rule checkers themselves, on native bodies written by hand from each API's documentation: a body
that breaks one rule is caught with that rule's id, and the same body repaired passes. (The checkers
judge every other conformance test, so they are tested first and without litellm.)"""

from __future__ import annotations

from typing import Any

import pytest

from messages import AIMessage, ImagePart, ToolCall, ToolMessage, UserMessage
from tests.conformance import (
    rules_anthropic,
    rules_bedrock,
    rules_cohere,
    rules_gemini,
    rules_ollama,
    rules_openai,
)
from tests.conformance.content import foreign_payloads, lost_content
from tests.conformance.rules import PLACEHOLDER


def _ids(violations: list[Any]) -> set[str]:
    return {v.rule for v in violations}


def _anthropic(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": list(messages), **extra}


def _user(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def _assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _use(use_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": "get_weather", "input": {}}


def _result(use_id: str, content: Any = "rain") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": use_id, "content": content}


ANTHROPIC_GOOD = _anthropic(
    _user(_text("hi")),
    _assistant(_text("checking"), _use("toolu_1")),
    _user(_result("toolu_1"), _text("and?")),
    _assistant(_text("rain")),
    _user(_text("thanks")),
)

ANTHROPIC_BAD = {
    "r13 empty text block": _anthropic(_user(_text("hi")), _assistant(_text("")), _user(_text("ok"))),
    "r13 whitespace text": _anthropic(_user(_text(" \n"))),
    "r13 empty message": _anthropic(_user(_text("hi")), _assistant(), _user(_text("ok"))),
    "r14 trailing whitespace": _anthropic(_user(_text("hi")), _assistant(_text("Sure: "))),
    "r16 result not first": _anthropic(
        _user(_text("hi")), _assistant(_use("toolu_1")), _user(_text("and?"), _result("toolu_1"))
    ),
    "r16 unanswered": _anthropic(_user(_text("hi")), _assistant(_use("toolu_1")), _user(_text("ok"))),
    "r16 orphan result": _anthropic(_user(_text("hi")), _assistant(_text("a")), _user(_result("toolu_9"))),
    "r17 id pattern": _anthropic(
        _user(_text("hi")), _assistant(_use("functions.x:0")), _user(_result("functions.x:0"))
    ),
    "r18 thinking last": _anthropic(
        _user(_text("hi")), _assistant(_text("a"), {"type": "thinking", "thinking": "t", "signature": "s"})
    ),
    "r19 system in messages": _anthropic({"role": "system", "content": "x"}, _user(_text("hi"))),
    "r19 no messages": _anthropic(),
    "r20 two user turns": _anthropic(_user(_text("a")), _user(_text("b"))),
    "r21 media type": _anthropic(
        _user({"type": "image", "source": {"type": "base64", "media_type": "image/jpg", "data": "AAAA"}})
    ),
    "ph placeholder": _anthropic(_user(_text("hi")), _assistant(_text(PLACEHOLDER)), _user(_text("ok"))),
}


def test_anthropic_accepts_a_good_body():
    assert rules_anthropic.check(ANTHROPIC_GOOD, "anthropic/claude-sonnet-4-5") == []


@pytest.mark.parametrize("name", list(ANTHROPIC_BAD))
def test_anthropic_catches(name):
    assert name.split()[0] in _ids(rules_anthropic.check(ANTHROPIC_BAD[name], "anthropic/claude-sonnet-4-5"))


def test_anthropic_prefill_rule_is_for_claude_4_6_only():
    body = _anthropic(_user(_text("hi")), _assistant(_text("Sure:")))
    assert rules_anthropic.check(body, "anthropic/claude-sonnet-4-5") == []
    assert _ids(rules_anthropic.check(body, "anthropic/claude-opus-4-6")) == {"r15"}


def _gemini(*contents: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"contents": list(contents), **extra}


def _g(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "parts": list(parts)}


_CALL = {"function_call": {"name": "get_weather", "args": {}}}
_RESPONSE = {"function_response": {"name": "get_weather", "response": {"content": "rain"}}}

GEMINI_GOOD = _gemini(
    _g("user", {"text": "hi"}),
    _g("model", {"text": "checking"}, {**_CALL, "thought_signature": "AAAA"}),
    _g("user", _RESPONSE),
    _g("user", {"text": "thanks"}),
    system_instruction={"parts": [{"text": "Be brief."}]},
)

GEMINI_BAD = {
    "r23 empty text": _gemini(_g("user", {"text": ""})),
    "r23 empty parts": _gemini(_g("user", {"text": "hi"}), _g("model")),
    "r23 empty part": _gemini(_g("user", {})),
    "r23 empty system text": _gemini(
        _g("user", {"text": "hi"}), system_instruction={"parts": [{"text": ""}]}
    ),
    "r24 call after model": _gemini(
        _g("user", {"text": "hi"}), _g("model", {"text": "a"}), _g("model", _CALL)
    ),
    "r24 missing response": _gemini(
        _g("user", {"text": "hi"}), _g("model", _CALL), _g("user", {"text": "x"})
    ),
    "r24 text beside response": _gemini(
        _g("user", {"text": "hi"}), _g("model", _CALL), _g("user", _RESPONSE, {"text": "x"})
    ),
    "r24 role": _gemini(_g("assistant", {"text": "hi"})),
    "r25 signature not base64": _gemini(
        _g("user", {"text": "hi"}), _g("model", {**_CALL, "thoughtSignature": "not base64!"})
    ),
    "r25 stray padding": _gemini(
        _g("user", {"text": "hi"}), _g("model", {**_CALL, "thoughtSignature": "A" * 40 + "="})
    ),
    "r26 no contents": _gemini(system_instruction={"parts": [{"text": "x"}]}),
    "r28 response not object": _gemini(
        _g("user", {"text": "hi"}),
        _g("model", _CALL),
        _g("user", {"function_response": {"name": "get_weather", "response": "rain"}}),
    ),
}


def test_gemini_accepts_a_good_body():
    assert rules_gemini.check(GEMINI_GOOD, "gemini/gemini-2.5-flash") == []


@pytest.mark.parametrize("name", list(GEMINI_BAD))
def test_gemini_catches(name):
    assert name.split()[0] in _ids(rules_gemini.check(GEMINI_BAD[name], "gemini/gemini-2.5-flash"))


def test_gemma_takes_no_system_instruction():
    assert _ids(rules_gemini.check(GEMINI_GOOD, "gemini/gemma-3-27b-it")) == {"r27"}


def _converse(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"messages": list(messages), **extra}


def _b(role: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "content": list(blocks)}


def _tool_use(use_id: str) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": use_id, "name": "get_weather", "input": {}}}


def _tool_result(use_id: str, text: str = "rain") -> dict[str, Any]:
    return {"toolResult": {"toolUseId": use_id, "content": [{"text": text}]}}


BEDROCK_GOOD = _converse(
    _b("user", {"text": "hi"}),
    _b("assistant", {"text": "checking"}, _tool_use("tooluse_1")),
    _b("user", _tool_result("tooluse_1")),
    _b("assistant", {"text": "rain"}),
    _b("user", {"text": "thanks"}),
    system=[{"text": "Be brief."}],
)

BEDROCK_BAD = {
    "r41 starts with assistant": _converse(_b("assistant", {"text": "hi"}), _b("user", {"text": "x"})),
    "r42 two user turns": _converse(_b("user", {"text": "a"}), _b("user", {"text": "b"})),
    "r43 blank text": _converse(_b("user", {"text": " "})),
    "r43 blank tool result": _converse(
        _b("user", {"text": "hi"}), _b("assistant", _tool_use("t1")), _b("user", _tool_result("t1", ""))
    ),
    "r43 empty content": _converse(_b("user", {"text": "hi"}), _b("assistant"), _b("user", {"text": "x"})),
    "r44 result beside text": _converse(
        _b("user", {"text": "hi"}),
        _b("assistant", _tool_use("t1")),
        _b("user", _tool_result("t1"), {"text": "x"}),
    ),
    "r44 unanswered": _converse(
        _b("user", {"text": "hi"}), _b("assistant", _tool_use("t1")), _b("user", {"text": "x"})
    ),
    "r45 long id": _converse(
        _b("user", {"text": "hi"}), _b("assistant", _tool_use("t" * 65)), _b("user", _tool_result("t" * 65))
    ),
    "ph placeholder": _converse(_b("user", {"text": PLACEHOLDER})),
}


def test_bedrock_accepts_a_good_body():
    assert rules_bedrock.check(BEDROCK_GOOD, "bedrock/converse/meta.llama3-1-70b-instruct-v1:0") == []


@pytest.mark.parametrize("name", list(BEDROCK_BAD))
def test_bedrock_catches(name):
    assert name.split()[0] in _ids(rules_bedrock.check(BEDROCK_BAD[name], "bedrock/converse/x.y"))


def test_bedrock_model_rules():
    kimi = _converse(
        _b("user", {"text": "hi"}),
        _b("assistant", _tool_use("functions.x:0")),
        _b("user", _tool_result("functions.x:0")),
    )
    assert rules_bedrock.check(kimi, "bedrock/converse/meta.llama3-1-70b-instruct-v1:0") == []
    assert _ids(rules_bedrock.check(kimi, "bedrock/converse/anthropic.claude-3-5-sonnet-20240620-v1:0")) == {
        "r17"
    }
    prefill = _converse(_b("user", {"text": "hi"}), _b("assistant", {"text": "Sure:"}))
    assert _ids(rules_bedrock.check(prefill, "bedrock/converse/meta.llama3-1-70b-instruct-v1:0")) == {"r47"}
    assert rules_bedrock.check(prefill, "bedrock/converse/anthropic.claude-3-5-sonnet-20240620-v1:0") == []


OLLAMA_GOOD = {
    "messages": [
        {"role": "user", "content": "hi", "images": ["iVBORw0KGgo="]},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {}}}],
        },
        {"role": "tool", "content": "rain", "tool_name": "get_weather"},
    ]
}


def test_ollama_rules():
    assert rules_ollama.check(OLLAMA_GOOD, "ollama_chat/llama3.1") == []
    bad = {
        "messages": [
            {"role": "user", "content": None, "images": ["data:image/png;base64,iVBORw0KGgo="]},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}],
            },
            {"role": "tool", "content": "rain", "tool_call_id": "call_1"},
        ]
    }
    assert _ids(rules_ollama.check(bad, "ollama_chat/llama3.1")) == {"r49", "r50", "r51", "r52"}
    assert rules_ollama.check({"prompt": "### User: hi"}, "ollama/llama3.1") == []


def _oa(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"model": "x", "messages": list(messages)}


_OA_CALL = {"id": "abcDEF123", "type": "function", "function": {"name": "f", "arguments": "{}"}}
OPENAI_GOOD = _oa(
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "", "tool_calls": [_OA_CALL]},
    {"role": "tool", "tool_call_id": "abcDEF123", "content": "rain"},
    {"role": "user", "content": "thanks"},
)


@pytest.mark.parametrize("rules", ["openai", "azure", "groq", "xai", "deepseek", "default", "together_ai"])
def test_openai_shape_accepts_a_good_body(rules):
    assert rules_openai.check(OPENAI_GOOD, rules) == []


OPENAI_BAD = {
    ("openai", "r1"): _oa({"role": "assistant", "tool_calls": [_OA_CALL]}, {"role": "user", "content": "x"}),
    ("openai", "r2"): _oa(
        {"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "a", "content": "y"}
    ),
    ("openai", "r3"): _oa(
        {"role": "assistant", "tool_calls": [{**_OA_CALL, "id": "c" * 41}]},
        {"role": "tool", "tool_call_id": "c" * 41, "content": "y"},
    ),
    ("openai", "r4"): _oa({"role": "user", "content": "x", "name": "Ann Lee"}),
    ("openai", "r5"): _oa({"role": "user", "content": None}),
    ("openai", "r6"): _oa(
        {"role": "assistant", "tool_calls": [{**_OA_CALL, "function": {"name": "f", "arguments": {}}}]},
        {"role": "tool", "tool_call_id": "abcDEF123", "content": "y"},
    ),
    ("openai", "r7"): _oa(
        {"role": "assistant", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}
    ),
    ("openai", "r12"): _oa(),
    ("o1-mini", "r8"): _oa({"role": "system", "content": "x"}, {"role": "user", "content": "y"}),
    ("azure", "r9"): _oa({"role": "developer", "content": "x"}, {"role": "user", "content": "y"}),
    ("azure", "r10"): _oa({"role": "user", "content": [{"type": "file", "file": {"file_id": "file-1"}}]}),
    ("mistral", "r30"): OPENAI_GOOD
    | {
        "messages": [
            *OPENAI_GOOD["messages"][:2],
            {"role": "assistant", "tool_calls": [{**_OA_CALL, "id": "call_1"}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "r"},
        ]
    },
    ("mistral", "r31"): _oa(
        {"role": "user", "content": "x"},
        {"role": "assistant", "tool_calls": [_OA_CALL]},
        {"role": "tool", "tool_call_id": "abcDEF123", "content": "y"},
        {"role": "user", "content": "z"},
    ),
    ("mistral", "r32"): _oa(
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "y"},
    ),
    ("mistral", "r33"): _oa({"role": "user", "content": "x", "name": "ann"}),
    ("groq", "r37"): _oa(
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": "y", "reasoning_content": "z"},
        {"role": "user", "content": "w"},
    ),
    ("groq", "r38"): _oa(
        {"role": "system", "content": [{"type": "text", "text": "x"}]}, {"role": "user", "content": "y"}
    ),
    ("xai", "r40"): _oa({"role": "user", "content": ""}),
    ("deepseek", "r36"): _oa({"role": "user", "content": [{"type": "text", "text": "x"}]}),
    ("deepseek-reasoner", "r34"): OPENAI_GOOD,
    ("perplexity", "r20"): _oa({"role": "user", "content": "x"}, {"role": "user", "content": "y"}),
    ("perplexity", "r61"): OPENAI_GOOD,
    ("default", "r53"): _oa(
        {"role": "user", "content": "x"},
        {"role": "assistant", "tool_calls": [{**_OA_CALL, "function": {"name": "f", "arguments": ""}}]},
        {"role": "tool", "tool_call_id": "abcDEF123", "content": "y"},
    ),
}


@pytest.mark.parametrize(("rules", "rule"), list(OPENAI_BAD), ids=[f"{r}-{i}" for r, i in OPENAI_BAD])
def test_openai_shape_catches(rules, rule):
    assert rule in _ids(rules_openai.check(OPENAI_BAD[rules, rule], rules))


def test_mistral_accepts_its_own_shape():
    body = _oa(
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [_OA_CALL]},
        {"role": "tool", "tool_call_id": "abcDEF123", "content": "y", "name": "f"},
        {"role": "assistant", "content": "z"},
        {"role": "user", "content": "w"},
    )
    body["messages"][1].pop("content")
    assert rules_openai.check(body, "mistral") == []


def test_cohere_rules():
    assert rules_cohere.check(OPENAI_GOOD, "cohere/command-r-plus") == []
    named = _oa({"role": "user", "content": "x", "name": "ann"})
    assert _ids(rules_cohere.check(named, "cohere/command-r-plus")) == {"r55"}
    empty = _oa({"role": "user", "content": ""})
    assert _ids(rules_cohere.check(empty, "cohere/command-r-plus")) == {"r55"}
    assert rules_cohere.check(_oa({"role": "user", "content": " "}), "cohere/command-r-plus") == []


_CALL_OBJ = ToolCall(id="call_1", name="get_weather", arguments="{}")
CONVERSATION = [
    UserMessage(content="Weather in Paris?"),
    AIMessage(content=None, tool_calls=[_CALL_OBJ]),
    ToolMessage(tool_call_id="call_1", content='{"sky": "clear"}'),
    AIMessage(content="Clear skies."),
]


def test_lost_content_finds_what_is_there_in_every_native_shape():
    openai = _oa(
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "tool_calls": [_OA_CALL]},
        {"role": "tool", "tool_call_id": "x", "content": '{"sky": "clear"}'},
        {"role": "assistant", "content": "Clear skies."},
    )
    gemini = _gemini(
        _g("user", {"text": "Weather in Paris?"}),
        _g("model", _CALL),
        _g("user", {"function_response": {"name": "get_weather", "response": {"sky": "clear"}}}),
        _g("model", {"text": "Clear skies. "}),
    )
    assert lost_content(CONVERSATION, openai, "openai") == []
    assert lost_content(CONVERSATION, gemini, "gemini") == []


def test_lost_content_notices_a_missing_text_and_a_missing_result():
    body = _oa(
        {"role": "user", "content": "Weather in Paris?"}, {"role": "assistant", "content": "Clear skies."}
    )
    lost = lost_content(CONVERSATION, body, "openai")
    assert [v.where for v in lost] == ["input[2]"]
    body = _anthropic(
        _user(_text("Weather in Paris?")),
        _assistant(_use("call_1")),
        _user(_result("call_1", '{"sky": "clear"}')),
    )
    assert [v.where for v in lost_content(CONVERSATION, body, "anthropic")] == ["input[3]"]


def test_foreign_payloads_are_found_only_on_another_provider():
    signed = AIMessage(
        content="a",
        thinking_blocks=[{"type": "thinking", "thinking": "t", "signature": "SIGNATURE-of-anthropic"}],
        provider="anthropic",
    )
    conversation = [UserMessage(content="hi"), signed, UserMessage(content="ok")]
    body = {
        "contents": [
            {"role": "model", "parts": [{"text": "a", "thought_signature": "SIGNATURE-of-anthropic"}]}
        ]
    }
    assert _ids(foreign_payloads(conversation, body, "gemini")) == {"foreign"}
    assert foreign_payloads(conversation, body, "anthropic") == []


def test_a_payload_that_is_also_the_users_own_data_is_not_called_foreign():
    # Found by the generated cohere cell: a Bedrock signature that is also the base64 of a user's image.
    shared = "ZGF0YTogW0RPTkVdCgo="
    signed = AIMessage(
        content="a",
        thinking_blocks=[{"type": "thinking", "thinking": "t", "signature": shared}],
        provider="bedrock",
    )
    image = UserMessage(content=[ImagePart(url=f"data:image/png;base64,{shared}")])
    body = {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": f"...{shared}"}]}]}
    assert foreign_payloads([UserMessage(content="hi"), signed, image], body, "cohere") == []
    # Without the image, the same body does carry Bedrock's payload.
    assert _ids(foreign_payloads([UserMessage(content="hi"), signed], body, "cohere")) == {"foreign"}


def test_a_known_failure_is_excused_only_where_its_entry_says():
    # An entry pinned to its hard cases excuses its rule there, not in a generated or handoff
    # conversation (where the same failure would otherwise go unseen); an `anywhere` entry excuses it in
    # every conversation.
    from tests.conformance import known
    from tests.conformance.rules import Violation

    pinned = known.Known(frozenset({"gemini"}), "r24", r"contents\[\d+\]", "", ("a case",), "why")
    everywhere = known.Known(frozenset({"gemini"}), "r24", r"contents\[\d+\]", "", ("a case",), "why", True)
    violation = Violation("r24", "contents[2]", "function responses for 1 call")
    assert pinned.covers("gemini", violation, "a case")
    assert not pinned.covers("gemini", violation, "another case")
    assert not pinned.covers("gemini", violation)
    assert everywhere.covers("gemini", violation)
    assert not everywhere.covers("vertex_ai", violation)
    # The one entry left: litellm never sends Ollama a tool result's tool_name (quirk 52).
    ollama = Violation("r52", "messages[3]", "a tool result without tool_name")
    assert known.unexplained("ollama_chat", [ollama]) == []
    assert known.unexplained("gemini", [violation]) == [violation]


def test_lost_content_counts_a_text_given_twice():
    # One copy of a repeated text gone is a lost text, even though the other copy is still there; merged
    # into one turn, both copies count.
    conversation = [
        UserMessage(content="Thanks."),
        AIMessage(content="You are welcome."),
        UserMessage(content="Thanks."),
    ]
    one_copy = _oa(
        {"role": "user", "content": "Thanks."}, {"role": "assistant", "content": "You are welcome."}
    )
    assert [v.where for v in lost_content(conversation, one_copy, "openai")] == ["input[2]"]
    merged = _oa({"role": "user", "content": "Thanks.\n\nYou are welcome.\n\nThanks."})
    assert lost_content(conversation, merged, "openai") == []
