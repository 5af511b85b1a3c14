"""``dump_messages(conversation, model=...)`` for every provider profile, against the plain dump.

The 10,000-message conversation (text, parallel tool calls, their results, some images) is dumped once per
profile, each with one model string that resolves to it; the baseline is ``dump_messages(conversation)``
measured in the same interleaved rounds. Resolution is cached, so what is measured is the adjustment
itself.

Target (issue 4): no profile costs more than 2x the plain dump.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from benchmarks._conversation import build_conversation
from benchmarks._timing import Table, verdict
from messages import dump_messages, get_profile

# One model string per provider, and per model family with rules of its own.
MODELS = [
    "openai/gpt-4o",
    "openai/o1-mini",
    "azure/gpt-4o",
    "anthropic/claude-sonnet-4-5",
    "anthropic/claude-opus-4-6",
    "bedrock/converse/meta.llama3-70b-instruct-v1:0",
    "bedrock/converse/us.anthropic.claude-opus-4-6-v1:0",
    "bedrock/converse/mistral.mistral-large-2402-v1:0",
    "gemini/gemini-2.5-flash",
    "gemini/gemma-3-27b-it",
    "vertex_ai/gemini-2.5-pro",
    "vertex_ai/claude-sonnet-4-6",
    "mistral/mistral-large-latest",
    "groq/llama-3.3-70b-versatile",
    "deepseek/deepseek-chat",
    "deepseek/deepseek-reasoner",
    "xai/grok-3",
    "ollama_chat/llama3.1",
    "ollama/llama3.1",
    "openrouter/openai/gpt-4o",
    "cohere/command-r-plus",
    "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
    "fireworks_ai/accounts/fireworks/models/llama-v3p1-70b-instruct",
    "perplexity/sonar",
    "hosted_vllm/Qwen/Qwen3-8B",
]

TARGET = 2.0


def main(quick: bool = False) -> None:
    size = 2_000 if quick else 10_000
    repeat = 3 if quick else 15
    conversation = build_conversation(size)
    for model in MODELS:
        get_profile(model)  # resolve once: every later call reads the cache
    plain = "dump_messages(conversation)"
    fns: dict[str, Callable[[], object]] = {plain: lambda: dump_messages(conversation)}
    for model in MODELS:
        fns[f"model={get_profile(model).name}"] = partial(dump_messages, conversation, model=model)
    # Each profile is timed right beside the plain dump, and the median of those ratios is reported: with
    # 25 candidates, a ratio of best times drifts by 0.3x from run to run on a noisy machine.
    table = Table(f"dump a {size:,}-message conversation with each provider profile")
    ratios = table.measure_paired(plain, fns, repeat=repeat)
    del ratios[plain]
    worst_name, worst = max(ratios.items(), key=lambda item: item[1])
    worst_name = worst_name.removeprefix("model=")
    table.show(
        plain,
        notes=[
            verdict(
                f"slowest profile ({worst_name.removeprefix('model=')}) vs the plain dump", worst, TARGET
            ),
            f"profiles within {TARGET}x: {sum(r <= TARGET for r in ratios.values())} of {len(ratios)}",
        ],
    )
