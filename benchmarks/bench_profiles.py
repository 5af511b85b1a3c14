"""``dump_messages(conversation, model=...)`` for every provider profile, against the plain dump.

The 10,000-message conversation (text, parallel tool calls, their results, some images) is dumped once per
profile, each with one model string that resolves to it; the baseline is ``dump_messages(conversation)``
measured in the same interleaved rounds. Resolution is cached, so what is measured is the adjustment
itself.

A second conversation is made of blocks in which most rules fire (``build_rule_heavy``: a late system
message, names with spaces, same-role neighbours, blank texts, media, odd and long ids, reasoning and
thinking, a refusal, empty results...): there every profile has real work to do.

Target (issue 16): no profile costs more than 1.5x the plain dump, on either conversation.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from functools import partial

from benchmarks._conversation import build_conversation, build_rule_heavy
from benchmarks._timing import Figure, Table, judged
from messages import Message, dump_messages, get_profile

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

TARGET = 1.5


def _fired(conversation: list[Message]) -> tuple[int, int]:
    """How many of the profiles' rules change the output on ``conversation`` (leaving a rule out changes
    what ``apply`` gives), and how many rules there are. A rule whose work another rule of the same
    profile also does counts as not firing, so this is a lower bound."""
    dumped = dump_messages(conversation[:200])
    fired = total = 0
    for model in MODELS:
        profile = get_profile(model)
        full = profile.apply(dumped)
        total += len(profile.rules)
        fired += sum(profile.with_rules(without=[r.id]).apply(dumped) != full for r in profile.rules)
    return fired, total


def _measure(title: str, conversation: list[Message], repeat: int) -> dict[str, float]:
    plain = "dump_messages(conversation)"
    fns: dict[str, Callable[[], object]] = {plain: lambda: dump_messages(conversation)}
    for model in MODELS:
        fns[f"model={get_profile(model).name}"] = partial(dump_messages, conversation, model=model)
    # Each profile is timed right beside the plain dump, and the median of those ratios is reported: with
    # 25 candidates, a ratio of best times drifts by 0.3x from run to run on a noisy machine.
    table = Table(title)
    ratios = table.measure_paired(plain, fns, repeat=repeat)
    del ratios[plain]
    worst_name, worst = max(ratios.items(), key=lambda item: item[1])
    table.show(
        plain,
        notes=[
            judged(
                Figure(
                    f"slowest profile ({worst_name.removeprefix('model=')}) vs the plain dump", worst, TARGET
                )
            ),
            f"profiles within {TARGET}x: {sum(r <= TARGET for r in ratios.values())} of {len(ratios)}",
        ],
    )
    return ratios


def main(quick: bool = False) -> list[Figure]:
    size = 2_000 if quick else 10_000
    repeat = 3 if quick else 15
    for model in MODELS:
        get_profile(model)  # resolve once: every later call reads the cache
    figures: list[Figure] = []
    conversation = build_conversation(size)
    ratios = _measure(
        f"dump a {size:,}-message conversation with each provider profile", conversation, repeat
    )
    figures.append(
        Figure("profiles, benchmark conversation: slowest vs plain dump", max(ratios.values()), TARGET)
    )
    figures.append(
        Figure("profiles, benchmark conversation: median vs plain dump", statistics.median(ratios.values()))
    )
    odd = build_rule_heavy(size // 4)
    fired, total = _fired(odd)
    ratios = _measure(
        f"dump a {len(odd):,}-message conversation where the rules fire ({fired} of the profiles' {total} "
        "rules change its output)",
        odd,
        repeat,
    )
    figures.append(Figure("profiles, rules firing: slowest", max(ratios.values()), TARGET))
    figures.append(Figure("profiles, rules firing: median", statistics.median(ratios.values())))
    return figures
