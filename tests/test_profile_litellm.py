"""The real ``litellm.completion`` on every OpenAI-shaped route, against the loopback stand-in: what
``dump_messages(conversation, model=...)`` makes litellm send passes that provider's rules, the OpenAI SDK's
own request types, and still holds every text, tool result and attachment of the conversation.

The routes that are not OpenAI-shaped (Anthropic, Gemini, Bedrock, Ollama, Cohere) are checked on their
native bodies by the conformance suite; here their profiles are checked on the list litellm receives.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import example, given, settings

from messages import (
    AIMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UnfixableError,
    UserMessage,
    dump_messages,
    get_profile,
)
from messages import strategies as ms
from messages.parts import FilePart, FileRef
from messages.profiles import registered_profiles
from messages.testing import StandInServer, scripted
from tests.conformance.harness import without_vllm_videos
from tests.conftest import send_kwargs
from tests.oracles import openai_accepts
from tests.test_profile_snapshot import canonical
from tests.wire import media, missing_texts, pairing, protocol_problems, tool_results

pytestmark = pytest.mark.litellm

# The OpenAI-shaped routes: each model string reaches /chat/completions (Mistral: /v1/chat/completions).
OPENAI_SHAPED = [
    "openai/gpt-4o-mini",
    "azure/gpt-4o",
    "groq/llama-3.3-70b-versatile",
    "deepseek/deepseek-chat",
    "deepseek/deepseek-reasoner",
    "xai/grok-3",
    "openrouter/openai/gpt-4o",
    "openrouter/anthropic/claude-opus-4.6",
    "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
    "fireworks_ai/accounts/fireworks/models/llama-v3p1-70b-instruct",
    "mistral/mistral-large-latest",
    "perplexity/sonar",
    "hosted_vllm/Qwen/Qwen3-8B",
    "hosted_vllm/mistralai/Mistral-7B-Instruct-v0.3",
]

# Keys Mistral documents beyond OpenAI's types: `prefix` on a final assistant text, `name` on tool results.
_MISTRAL_EXTRAS = {"assistant": "prefix", "tool": "name"}


def send(litellm, server: StandInServer, model: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages litellm puts on the wire for ``model``."""
    extra = {"api_version": "2024-10-21"} if model.startswith("azure/") else {}
    litellm.completion(model=model, messages=messages, **extra, **send_kwargs(server))
    return server.last_body()["messages"]


def _unmarked(m: dict[str, Any]) -> dict[str, Any]:
    m = {k: v for k, v in m.items() if k != "cache_control"}
    if isinstance(m.get("content"), list):
        m["content"] = [
            {k: v for k, v in p.items() if k != "cache_control"} if isinstance(p, dict) else p
            for p in m["content"]
        ]
    return m


def for_the_oracle(model: str, body: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The body as the OpenAI SDK's types should take it, or None where the provider's own extensions
    are part of it (DeepSeek takes `reasoning_content`: the reasoner any, the others their own)."""
    profile = get_profile(model)
    if getattr(profile.rule("cache-control"), "keep", False):  # OpenRouter's Claude models take the marks
        body = [_unmarked(m) for m in body]
    if profile.rule("reasoning-missing") is not None:  # every turn carries reasoning_content
        return None
    if getattr(profile.rule("foreign-reasoning"), "own_reasoning_content", False):
        return [{k: v for k, v in m.items() if k != "reasoning_content"} for m in body]
    if model.startswith("hosted_vllm/"):  # the OpenAI-compatible default, on litellm's vLLM route
        body = without_vllm_videos(body)
    if profile.provider == "mistral":
        if media(body, ["file"]):
            return None  # litellm writes file parts in Mistral's own shape ({"type": "file", "file_id": ...})
        return [{k: v for k, v in m.items() if k != _MISTRAL_EXTRAS.get(m["role"])} for m in body]
    return body


def assert_sent_right(model: str, plain: list[dict[str, Any]], body: list[dict[str, Any]]) -> None:
    profile = get_profile(model)
    assert [str(v) for v in profile.check(body) if v.fixable] == [], model
    assert missing_texts(plain, body) == [], model
    # Every image, audio clip and file is still there (a tool result's moved to a user message). litellm
    # at the floor (1.82.2) marks each image URL "#transform=inline" on its Fireworks route (Fireworks'
    # document inlining, which it reads): the same image.
    sent = [url.removesuffix("#transform=inline") for url in media(body)]
    assert Counter(sent) >= Counter(media(plain)), model
    if profile.supports_tools:
        assert protocol_problems(body) == [], model
        assert len(tool_results(body)) == len(tool_results(plain)), model
        assert pairing(body) == pairing(plain), model
    oracle = for_the_oracle(model, body)
    if oracle is not None:
        openai_accepts(oracle)


@settings(max_examples=12)
@given(conversation=ms.conversations())
# Found by this property: litellm's hosted_vllm route sends a file by id that names a video as vLLM's own
# video_url part.
@example(conversation=[UserMessage(content=[FilePart(file=FileRef(file_id="gs://bucket/0.mp4"))])])
def test_every_openai_shaped_route_sends_what_its_provider_accepts(litellm, conversation):
    plain = dump_messages(conversation)
    with StandInServer() as server:
        for model in OPENAI_SHAPED:
            profile = get_profile(model)
            unfixable = {(v.index, v.rule) for v in profile.check(plain) if not v.fixable}
            if unfixable:
                # Nothing is sent that the provider has no form for (video, media in an assistant turn,
                # files to Fireworks...); what is refused is what check calls not fixable.
                with pytest.raises(UnfixableError) as refused:
                    dump_messages(conversation, model=model)
                assert {(v.index, v.rule) for v in refused.value.violations} == unfixable, model
                continue
            applied = dump_messages(conversation, model=model)
            body = send(litellm, server, model, applied)
            assert_sent_right(model, plain, body)


@pytest.mark.parametrize("model", OPENAI_SHAPED)
def test_the_canonical_conversation_goes_out_right_on_every_route(litellm, model):
    # The snapshot's conversation: empty texts and results, Gemini and Kimi ids, images in a tool result,
    # reasoning signed by two providers, a late system message, two user turns in a row, prefill.
    plain = dump_messages(canonical())
    unfixable = {(v.index, v.rule) for v in get_profile(model).check(plain) if not v.fixable}
    with StandInServer() as server:
        if unfixable:  # DeepSeek's text models: the images (quirk 36)
            with pytest.raises(UnfixableError) as refused:
                dump_messages(canonical(), model=model)
            assert {(v.index, v.rule) for v in refused.value.violations} == unfixable
            assert model.startswith("deepseek/")
        else:
            body = send(litellm, server, model, dump_messages(canonical(), model=model))
            assert_sent_right(model, plain, body)
        # litellm alone: the plain dump breaks rules on every route.
        litellm_alone = send(litellm, server, model, dump_messages(canonical()))
    assert [v for v in get_profile(model).check(litellm_alone) if v.fixable] != []


def test_litellm_moves_tool_images_itself_on_the_openai_route(litellm):
    # quirk 7, left to litellm by the OpenAI profile: its route puts the images of a tool
    # result into a user message after the results.
    plain = dump_messages(canonical())
    with StandInServer() as server:
        body = send(
            litellm, server, "openai/gpt-4o-mini", dump_messages(canonical(), model="openai/gpt-4o-mini")
        )
    images = [i for i, m in enumerate(body) if m["role"] == "user" and media([m])]
    assert [body[i - 1]["role"] for i in images] == ["user", "tool"]
    assert not any(media([m]) for m in tool_results(body))
    assert Counter(media(body)) == Counter(media(plain))


# --- a conversation made on one provider, continued on another ---------------------------------------

GEMINI_SIGNATURE = "Q2lRQkJ5ekNwS0Y3aG9sYQ=="


def _response(litellm, provider: str, message: dict[str, Any]):
    response = litellm.ModelResponse(
        model="origin", choices=[{"index": 0, "finish_reason": "tool_calls", "message": message}]
    )
    response._hidden_params["custom_llm_provider"] = provider
    return response


def _two_calls(ids: list[str], **extra: Any) -> list[dict[str, Any]]:
    cities = ["Paris", "Oslo"]
    return [
        {
            "id": call_id,
            "type": "function",
            "function": {"name": "get_weather", "arguments": f'{{"city":"{city}"}}'},
            **extra,
        }
        for call_id, city in zip(ids, cities, strict=True)
    ]


def replies_as_litellm_returns_them(litellm) -> dict[str, AIMessage]:
    """A tool-call reply from each origin, shaped as litellm returns it (docs/litellm.md,
    'Tool-call replies as litellm returns them'),
    read by ``AIMessage.from_litellm``."""
    return {
        "anthropic": AIMessage.from_litellm(
            _response(
                litellm,
                "anthropic",
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": _two_calls(
                        ["toolu_01A09q90qw90lq917835lq9", "toolu_01B7XfTaQ2xE5xw3Nc3mUh6d"]
                    ),
                    "reasoning_content": "Two cities.",
                    "thinking_blocks": [
                        {"type": "thinking", "thinking": "Two cities.", "signature": "RXVkZXNpZ24="}
                    ],
                },
            )
        ),
        "gemini": AIMessage.from_litellm(
            _response(
                litellm,
                "gemini",
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": _two_calls(
                        [
                            f"call_{'a1' * 16}__thought__{GEMINI_SIGNATURE}",
                            f"call_{'b2' * 16}__thought__{GEMINI_SIGNATURE}",
                        ],
                        provider_specific_fields={"thought_signature": GEMINI_SIGNATURE},
                    ),
                },
            )
        ),
        "bedrock": AIMessage.from_litellm(
            _response(
                litellm,
                "bedrock",
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": _two_calls(
                        ["tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "tooluse_Xy9Abc12De34Fg56Hi78Jk"]
                    ),
                    "thinking_blocks": [
                        {"type": "thinking", "thinking": "Two.", "signature": "YmVkcm9jaw=="}
                    ],
                },
            )
        ),
        "ollama_chat": AIMessage.from_litellm(
            _response(
                litellm,
                "ollama_chat",
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": _two_calls(
                        ["5f1c3a9e-2b7d-4e8f-9a6b-1c2d3e4f5a6b", "0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d"]
                    ),
                },
            )
        ),
    }


REPLIED_THROUGH_THE_STAND_IN = {
    # model string -> the ids its provider mints
    "deepseek/deepseek-reasoner": ["call_00_Xk3mP9qLr2Tz", "call_01_Bn7cV4wEy8Ua"],
    "mistral/mistral-large-latest": ["D681PevKs", "a9Bc3De5F"],
    "openrouter/moonshotai/kimi-k2": ["functions.get_weather:0", "functions.get_weather:1"],
    "openai/gpt-4o-mini": ["call_Ab12Cd34Ef56Gh78Ij90Kl", "call_Zz99Yy88Xx77Ww66Vv55Uu"],
}


def replies_through_the_stand_in(litellm) -> dict[str, AIMessage]:
    """A tool-call reply from each OpenAI-shaped origin, through the real litellm.completion."""
    replies = {}
    for model, ids in REPLIED_THROUGH_THE_STAND_IN.items():
        reasoning = "Two cities." if "deepseek" in model else None
        scripted_reply = AIMessage(
            content=None,
            tool_calls=[ToolCall.model_validate(c) for c in _two_calls(ids)],
            reasoning_content=reasoning,
        )
        with StandInServer(scripted(scripted_reply)) as server:
            response = litellm.completion(
                model=model, messages=[{"role": "user", "content": "Weather?"}], **send_kwargs(server)
            )
        replies[model] = AIMessage.from_litellm(response)
    return replies


def continued(reply: AIMessage) -> list[Any]:
    return [
        SystemMessage(content="You are a weather assistant."),
        UserMessage(content="Weather in Paris and Oslo?"),
        reply,
        *[ToolMessage.for_call(c, {"sky": "rain"}) for c in reply.tool_calls],
        AIMessage(content="Rain in both."),
        UserMessage(content="And tomorrow?"),
    ]


def test_a_conversation_made_on_one_provider_passes_every_other_profiles_check(litellm):
    origins = {**replies_as_litellm_returns_them(litellm), **replies_through_the_stand_in(litellm)}
    assert origins["anthropic"].provider == "anthropic"
    assert origins["gemini"].tool_calls[0].provider_specific_fields == {"thought_signature": GEMINI_SIGNATURE}
    assert origins["deepseek/deepseek-reasoner"].reasoning_content == "Two cities."
    targets = [p for p in registered_profiles() if p.family is None or "claude-opus-4-6" in p.family]
    needed = set()
    for origin, reply in origins.items():
        conversation = continued(reply)
        plain = dump_messages(conversation)
        for target in targets:
            applied = target.apply(plain)
            assert [str(v) for v in target.check(applied) if v.fixable] == [], (origin, target.name)
            assert missing_texts(plain, applied) == [], (origin, target.name)
            if any(v.fixable for v in target.check(plain)):
                needed.add((origin, target.provider))
    # The profile was needed, not decorative: ids, payloads and empty texts of one provider break others.
    assert {
        ("gemini", "mistral"),
        ("anthropic", "bedrock"),
        ("openrouter/moonshotai/kimi-k2", "anthropic"),
    } <= needed
    assert ("bedrock", "anthropic") in needed


@pytest.mark.parametrize(
    "target",
    [
        "mistral/mistral-large-latest",
        "openai/gpt-4o-mini",
        "deepseek/deepseek-reasoner",
        "perplexity/sonar",
        "hosted_vllm/Qwen/Qwen3-8B",
    ],
)
def test_a_conversation_made_elsewhere_goes_out_right_through_litellm(litellm, target):
    origins = {**replies_as_litellm_returns_them(litellm), **replies_through_the_stand_in(litellm)}
    with StandInServer() as server:
        for origin, reply in origins.items():
            conversation = continued(reply)
            body = send(litellm, server, target, dump_messages(conversation, model=target))
            assert [str(v) for v in get_profile(target).check(body) if v.fixable] == [], origin
            assert_sent_right(target, dump_messages(conversation), body)
