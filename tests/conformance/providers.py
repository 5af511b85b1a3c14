"""Every provider of the conformance suite: its litellm model string, its native family, and how litellm is
pointed at the stand-in for it (docs/litellm.md, 'Pointing litellm at a local stand-in')."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from messages.testing import StandInServer

Family = Literal["openai", "anthropic", "gemini", "bedrock", "ollama_chat", "ollama_generate", "cohere"]


@dataclass(frozen=True)
class Provider:
    """One column of the conformance table: a litellm model string and the rules its API enforces."""

    key: str
    """The name in the table (a profile name, or a model family such as ``anthropic-4.6``)."""
    model: str
    """The litellm model string, as a bot passes it to ``completion`` and to ``dump_messages``."""
    family: Family
    """The native body format litellm sends (which extractor and checker read it)."""
    flavour: str = ""
    """Whose rules the family checker applies (``"mistral"``, ``"groq"``, ...); the key when empty."""
    options: dict[str, Any] = field(default_factory=dict)
    """Extra keyword arguments of ``completion`` for this provider."""
    has_tools: bool = True
    """Whether the API takes tools (Perplexity's chat API has none, quirk 61): without
    them a bot sends no ``tools=``, and tool results can only reach the model as text."""

    @property
    def rules(self) -> str:
        return self.flavour or self.key

    def kwargs(self, server: StandInServer) -> dict[str, Any]:
        """What ``litellm.completion`` needs to reach the stand-in for this provider (fake keys, no retry)."""
        return {**server.completion_kwargs(self.model), **self.options}


PROVIDERS: list[Provider] = [
    Provider("openai", "openai/gpt-4o-mini", "openai"),
    Provider("o1-mini", "openai/o1-mini", "openai"),
    Provider("azure", "azure/gpt-4o-mini", "openai"),
    Provider("anthropic", "anthropic/claude-sonnet-4-5", "anthropic"),
    Provider("anthropic-4.6", "anthropic/claude-opus-4-6", "anthropic"),
    Provider("gemini", "gemini/gemini-2.5-flash", "gemini"),
    Provider("gemma", "gemini/gemma-3-27b-it", "gemini"),
    Provider("vertex_ai", "vertex_ai/gemini-2.5-flash", "gemini"),
    Provider("mistral", "mistral/mistral-large-latest", "openai"),
    Provider("groq", "groq/llama-3.3-70b-versatile", "openai"),
    Provider("deepseek", "deepseek/deepseek-chat", "openai"),
    Provider("deepseek-reasoner", "deepseek/deepseek-reasoner", "openai"),
    Provider("xai", "xai/grok-3", "openai"),
    Provider("openrouter", "openrouter/openai/gpt-4o-mini", "openai"),
    Provider("together_ai", "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo", "openai"),
    Provider("fireworks_ai", "fireworks_ai/accounts/fireworks/models/llama-v3p3-70b-instruct", "openai"),
    Provider("perplexity", "perplexity/sonar", "openai", has_tools=False),
    Provider("default", "hosted_vllm/meta-llama/Llama-3.1-8B-Instruct", "openai"),
    Provider("bedrock", "bedrock/converse/anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock"),
    Provider("bedrock-llama", "bedrock/converse/meta.llama3-1-70b-instruct-v1:0", "bedrock"),
    Provider("ollama_chat", "ollama_chat/llama3.1", "ollama_chat"),
    Provider("ollama", "ollama/llama3.1", "ollama_generate", has_tools=False),
    Provider("cohere", "cohere/command-r-plus", "cohere"),
]
"""Every provider the profiles cover (issue 4, deliverable 2), and the model families with rules of their
own (o1-mini, Gemma, Claude 4.6, DeepSeek thinking, Llama on Bedrock)."""

BY_KEY = {p.key: p for p in PROVIDERS}
