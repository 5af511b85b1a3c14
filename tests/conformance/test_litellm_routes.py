"""Routes as litellm resolves them (issue 24, item 3): every provider prefix litellm knows, and the model
names that pick another transformation under one prefix (Vertex AI's partner models, Bedrock's invoke
route, Cohere's v1), get the profile written for the transformation litellm really uses.

litellm's routing is pinned: ``litellm_routes.json`` holds, for each prefix of ``litellm.provider_list``,
the chat transformation (config class) litellm picks for it, on the newest pin (constraints.txt), and
``litellm_routes_floor.json`` the same on the floor (constraints-floor.txt); a prefix that moves, appears or
goes fails here, by name. After a litellm upgrade, rewrite the file of the pin that moved (in that pin's
environment: ``.venv`` or ``.venv-floor``) and read the diff:

    python -m tests.conformance.test_litellm_routes --write
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from messages._litellm import VERTEX_GEMMA_MAAS_OPENAI_LIKE, VERTEX_XAI_OPENAI_LIKE
from messages.errors import UnfixableError
from messages.profiles import get_profile
from tests.litellm_pins import pin

pytestmark = pytest.mark.litellm

PINNED = {
    "newest": Path(__file__).with_name("litellm_routes.json"),
    "floor": Path(__file__).with_name("litellm_routes_floor.json"),
}
"""The routing table of each litellm pin (``tests.litellm_pins``)."""
_WHAT = "litellm's routing table (write it with: python -m tests.conformance.test_litellm_routes --write)"

# A model name per prefix where litellm's choice depends on it; "some-model" elsewhere.
_MODEL_OF = {
    "openai": "gpt-4o",
    "azure": "gpt-4o",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
    "bedrock": "meta.llama3-1-70b-instruct-v1:0",
    "vertex_ai": "gemini-2.5-flash",  # its other models: VERTEX below
    "cohere": "command-r-plus",
    "cohere_chat": "command-r-plus",
}

# The transformation each built-in profile is written for: litellm's config class -> the profile's provider.
PROFILE_OF_CONFIG = {
    "OpenAIGPTConfig": "openai",
    "AzureOpenAIConfig": "azure",
    "AzureAIStudioConfig": "azure",
    "AnthropicConfig": "anthropic",
    "GoogleAIStudioGeminiConfig": "gemini",
    "VertexGeminiConfig": "vertex_ai",
    "MistralConfig": "mistral",
    "GroqChatConfig": "groq",
    "DeepSeekChatConfig": "deepseek",
    "XAIChatConfig": "xai",
    "OpenrouterConfig": "openrouter",
    "TogetherAIChatConfig": "together_ai",
    "TogetherAIConfig": "together_ai",  # its name before litellm 1.100
    "FireworksAIConfig": "fireworks_ai",
    "PerplexityChatConfig": "perplexity",
    "OllamaConfig": "ollama",
    "OllamaChatConfig": "ollama_chat",
    "CohereV2ChatConfig": "cohere",
    "AmazonConverseConfig": "bedrock",
}

# Prefixes whose transformation builds something other than an OpenAI-shaped message list (a prompt, a
# native body of another API) and has no profile here: they get the OpenAI-compatible default, whose rules
# were not written for them. Each is named, so that one more shows up in review.
WITHOUT_A_PROFILE = {
    "a2a": "an agent protocol, not a chat body",
    "anthropic_text": "a text-completion prompt",
    "azure_text": "a text-completion prompt",
    "bytez": "its own body",
    "cloudflare": "its own body before litellm 1.91 (from 1.91, an OpenAI-shaped route: the default too)",
    "databricks_agent": "an agent endpoint",
    "fal_ai": "its own body",
    "langflow": "an agent flow's own body",
    "langgraph": "an agent graph's own body",
    "microsoft_365_copilot": "Copilot's own body",
    "gigachat": "its own body",
    "nlp_cloud": "a text prompt",
    "oci": "Oracle's own body",
    "petals": "a text prompt",
    "predibase": "a text prompt",
    "replicate": "a text prompt",
    "sagemaker": "a text prompt",
    "scaledown": "its own body",
    "text-completion-codestral": "a fill-in-the-middle prompt",
    "text-completion-inception": "a text-completion prompt",
    "text-completion-openai": "a text-completion prompt",
    "triton": "a text prompt",
    "watsonx_text": "a text prompt",
}


def _route_of(litellm: Any, prefix: str) -> str | None:
    """The name of the chat config class litellm uses for ``prefix``, or ``None`` when it has none."""
    from litellm.utils import ProviderConfigManager

    model = _MODEL_OF.get(prefix, "some-model")
    config = ProviderConfigManager.get_provider_chat_config(
        model=model, provider=litellm.LlmProviders(prefix)
    )
    return None if config is None else type(config).__name__


def _prefixes(litellm: Any) -> list[str]:
    return sorted(str(getattr(p, "value", p)) for p in litellm.provider_list)


def _routes(litellm: Any) -> dict[str, str | None]:
    return {prefix: _route_of(litellm, prefix) for prefix in _prefixes(litellm)}


def test_litellms_routing_is_the_one_pinned(litellm):
    pinned = json.loads(PINNED[pin(_WHAT)].read_text(encoding="utf-8"))
    live = _routes(litellm)
    moved = {p: (pinned.get(p, "(not there)"), live.get(p, "(gone)")) for p in pinned.keys() | live.keys()}
    moved = {p: was_is for p, was_is in moved.items() if was_is[0] != was_is[1]}
    assert moved == {}, f"litellm routes these prefixes otherwise than pinned (was, is): {moved}"


def _openai_shaped(litellm: Any, name: str) -> bool:
    """Whether litellm's config class of that name builds an OpenAI-shaped message list (it is, or
    derives from, its OpenAI chat configs)."""
    from litellm.llms.openai.chat.gpt_transformation import OpenAIGPTConfig
    from litellm.llms.openai.openai import OpenAIConfig

    for prefix in _prefixes(litellm):
        from litellm.utils import ProviderConfigManager

        model = _MODEL_OF.get(prefix, "some-model")
        config = ProviderConfigManager.get_provider_chat_config(
            model=model, provider=litellm.LlmProviders(prefix)
        )
        if config is not None and type(config).__name__ == name:
            return isinstance(config, OpenAIGPTConfig | OpenAIConfig)
    raise AssertionError(f"no prefix uses {name}")


def test_every_prefix_gets_the_profile_of_the_transformation_litellm_uses(litellm):
    wrong = {}
    for prefix, route in _routes(litellm).items():
        if route is None:
            continue  # no chat route (embeddings, images, speech, ...)
        model = f"{prefix}/{_MODEL_OF.get(prefix, 'some-model')}"
        profile = get_profile(model)
        if route in PROFILE_OF_CONFIG:
            expected = PROFILE_OF_CONFIG[route]
            if profile.provider != expected or profile.is_default:
                wrong[prefix] = (route, profile.name, expected)
        elif prefix in WITHOUT_A_PROFILE:
            assert profile.is_default, (prefix, profile.name)
        elif _openai_shaped(litellm, route):
            # An OpenAI-shaped route this package has no profile of its own for: the OpenAI-compatible
            # default, under the prefix's name.
            if not profile.is_default:
                wrong[prefix] = (route, profile.name, "the OpenAI-compatible default")
        else:
            wrong[prefix] = (route, profile.name, "an OpenAI-shaped route, or an entry in WITHOUT_A_PROFILE")
    assert wrong == {}, wrong


def test_cohere_chat_is_the_v2_route_and_gets_the_cohere_rules(litellm):
    # Issue 24: litellm sends cohere/ and cohere_chat/ alike through its v2 transformation; only "v1/" in
    # the model name picks the v1 one, which sends the last message alone.
    from litellm.llms.cohere.common_utils import CohereModelInfo

    for model in ("cohere/command-r-plus", "cohere_chat/command-r-plus", "cohere_chat/command-a-03-2025"):
        bare = model.split("/", 1)[1]
        assert CohereModelInfo.get_cohere_route(bare) == "v2", model
        assert _route_of(litellm, model.split("/")[0]) == "CohereV2ChatConfig"
        assert get_profile(model).name == "cohere", model
    for model in ("cohere/v1/command-r", "cohere_chat/v1/command-r"):
        assert CohereModelInfo.get_cohere_route(model.split("/", 1)[1]) == "v1"
        assert get_profile(model).name == "cohere:v1", model


def test_a_lone_system_message_reaches_cohere_v1_as_the_message_with_no_turn_pushing_it_out(litellm):
    # Quirk 87: the v1 route sends the last message only. A lone system message is that message, so the
    # user turn the v2 rules add after system messages (Cohere v2 wants a turn) would push it out, and
    # litellm would send "Continue." alone. Found by test_profile_properties' idempotence property.
    from litellm.litellm_core_utils.prompt_templates.factory import cohere_messages_pt_v2

    lone = [{"role": "system", "content": "answer in French"}]
    v1 = get_profile("cohere/v1/command-r").apply(lone)
    assert cohere_messages_pt_v2(messages=v1, model="command-r", llm_provider="cohere_chat")[0] == (
        "answer in French"
    )
    assert [m["role"] for m in get_profile("cohere/command-r").apply(lone)] == ["system", "user"]
    # Two system messages are a history: refused, as any longer conversation on v1 is.
    with pytest.raises(UnfixableError, match="quirk 87"):
        get_profile("cohere/v1/command-r").apply([*lone, {"role": "system", "content": "be brief"}])


# Model names under one prefix that pick different transformations: litellm's own choice, through its
# own functions, against the profile each resolves to.
VERTEX = {
    "vertex_ai/gemini-2.5-flash": ("gemini", "vertex_ai:gemini"),
    "vertex_ai/gemma-3-27b-it": ("gemini", "vertex_ai:gemma"),  # the Gemini API route (non-Gemini models)
    "vertex_ai/claude-sonnet-4-5": ("claude", "vertex_ai:claude"),
    "vertex_ai/claude-opus-4-6": ("claude", "vertex_ai:claude-opus-4-6"),
    "vertex_ai/mistral-large-2411": ("mistral", "vertex_ai:mistral"),
    "vertex_ai/codestral-2501": ("mistral", "vertex_ai:codestral"),
    "vertex_ai/meta/llama-3.1-405b-instruct-maas": ("openai-like", "vertex_ai:meta"),
    "vertex_ai/deepseek-ai/deepseek-r1-0528-maas": ("openai-like", "vertex_ai:deepseek-ai"),
    "vertex_ai/qwen/qwen3-coder-480b-a35b-instruct-maas": ("openai-like", "vertex_ai:qwen"),
    "vertex_ai/openai/gpt-oss-120b-maas": ("openai-like", "vertex_ai:openai"),
    "vertex_ai/moonshotai/kimi-k2-thinking-maas": ("openai-like", "vertex_ai:moonshotai"),
    # Sent through the Gemini transformation before litellm 1.89 and 1.84 (messages._litellm).
    "vertex_ai/google/gemma-3-27b-it-maas": ("openai-like", "vertex_ai:google/gemma")
    if VERTEX_GEMMA_MAAS_OPENAI_LIKE.holds()
    else ("gemini", "vertex_ai:gemma"),
    "vertex_ai/jamba-1.5-large": ("openai-like", "vertex_ai:jamba"),
    "vertex_ai/xai/grok-4.1-fast-non-reasoning": ("openai-like", "vertex_ai:xai")
    if VERTEX_XAI_OPENAI_LIKE.holds()
    else ("gemini", "vertex_ai"),
}


def _vertex_transformation(model: str) -> str:
    """Which of litellm's transformations a Vertex AI model goes through, as litellm decides it."""
    from litellm.llms.vertex_ai.common_utils import VertexAIModelRoute, get_vertex_ai_model_route
    from litellm.llms.vertex_ai.vertex_ai_partner_models.main import VertexAIPartnerModels

    route = get_vertex_ai_model_route(model)
    if route in (VertexAIModelRoute.GEMINI, VertexAIModelRoute.NON_GEMINI):
        return "gemini"
    if route == VertexAIModelRoute.MODEL_GARDEN:
        return "openai-like"
    assert route == VertexAIModelRoute.PARTNER_MODELS, (model, route)
    if VertexAIPartnerModels.should_use_openai_handler(model):
        return "openai-like"
    if "mistral" in model or "codestral" in model:
        return "mistral"
    if "jamba" in model:
        return "openai-like"  # AI21's config is OpenAI-like (AI21ChatConfig)
    assert "claude" in model, model
    return "claude"


_KIND_OF_PROFILE = {"gemini": "GEMINI_RULES", "claude": "CLAUDE_RULES", "mistral": "MISTRAL_RULES"}


@pytest.mark.parametrize("model", list(VERTEX))
def test_vertex_ai_models_get_the_profile_of_their_transformation(litellm, model):
    transformation, name = VERTEX[model]
    assert _vertex_transformation(model.split("/", 1)[1]) == transformation
    profile = get_profile(model)
    assert profile.name == name
    from messages.profiles import anthropic, default, gemini, mistral

    written_for = {
        "gemini": {r.id for r in gemini.GEMINI_RULES},
        "claude": {r.id for r in anthropic.CLAUDE_RULES},
        "mistral": {r.id for r in mistral.MISTRAL_RULES},
        "openai-like": {r.id for r in default.template_rules(33)},
    }[transformation]
    assert {r.id for r in profile.rules} >= written_for - {"tool-call-id", "system-role"}, model


BEDROCK = {
    "bedrock/converse/anthropic.claude-3-5-sonnet-20240620-v1:0": (
        "AmazonConverseConfig",
        "bedrock:claude-3-5-sonnet-20240620",  # Claude without prompt caching on Bedrock (quirk 75)
    ),
    "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0": (
        "AmazonConverseConfig",
        "bedrock:claude-3-5-sonnet-20240620",
    ),
    "bedrock/converse/anthropic.claude-3-7-sonnet-20250219-v1:0": ("AmazonConverseConfig", "bedrock:claude"),
    "bedrock/meta.llama3-1-70b-instruct-v1:0": ("AmazonConverseConfig", "bedrock"),
    "bedrock/mistral.mistral-large-2402-v1:0": ("AmazonConverseConfig", "bedrock:mistral"),
    "bedrock/amazon.nova-pro-v1:0": ("AmazonConverseConfig", "bedrock"),
}
"""Bedrock model strings that litellm sends through Converse, the transformation the Bedrock profile is
written for."""

BEDROCK_ELSEWHERE = {
    "bedrock/invoke/anthropic.claude-3-5-sonnet-20240620-v1:0": "AmazonAnthropicClaudeConfig",
    "bedrock/cohere.command-r-plus-v1:0": "AmazonCohereConfig",
}
"""Bedrock model strings litellm sends through another transformation (its invoke route), for which no
profile is written: they resolve to the Converse profile, which is not theirs. Pinned, so that a change
shows."""


@pytest.mark.parametrize("model", list(BEDROCK) + list(BEDROCK_ELSEWHERE))
def test_bedrock_models_and_the_transformation_litellm_uses(litellm, model):
    from litellm.utils import ProviderConfigManager

    bare = model.split("/", 1)[1]
    config = type(
        ProviderConfigManager.get_provider_chat_config(model=bare, provider=litellm.LlmProviders("bedrock"))
    )
    if model in BEDROCK:
        name, profile = BEDROCK[model]
        assert config.__name__ == name
        assert get_profile(model).name == profile
    else:
        assert config.__name__ == BEDROCK_ELSEWHERE[model]
        assert get_profile(model).provider == "bedrock"


def _write() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    target = PINNED[pin(_WHAT)]
    target.write_text(json.dumps(_routes(litellm), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.conformance.test_litellm_routes --write")
    _write()
