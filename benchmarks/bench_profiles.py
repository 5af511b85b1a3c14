"""``dump_messages(conversation, model=...)`` for every provider profile, against the plain dump.

The 10,000-message conversation (text, parallel tool calls, their results, some images) is dumped once per
profile, each with one model string that resolves to it; the baseline is ``dump_messages(conversation)``
measured in the same interleaved rounds. Resolution is cached, so what is measured is the adjustment
itself.

A second conversation is made of blocks in which most rules fire (``build_rule_heavy``: a late system
message, names with spaces, same-role neighbours, blank texts, media, odd and long ids, reasoning and
thinking, a refusal, empty results...): there every profile has real work to do.

Target (issue 16): no profile costs more than 1.5x the plain dump, on either conversation.

Both conversations are dumped with ``on_unfixable="send"``: they hold what some profiles refuse (images
for DeepSeek's text models; audio, files and video for most, in the rule-heavy one), and what is measured
is the adjustment, which is the same either way (the pass keeps aside the findings it leaves unfixed in
both modes; only a refusal then describes them and raises).

After each conversation, "where the time goes" splits the pass of two profiles (OpenAI's, and the slowest)
into the walk itself (the same pass with no rules: each message looked at, the shape of those that are not
plain found) and what each rule adds (the pass with the rule left out, subtracted from the whole), each as a
share of the plain dump with its protocol check, the ratios' baseline. A profile stays within 1.5x only if
its whole pass costs at most half that baseline. For scale, the same section prints what one shallow copy of
every message costs: a pass that rebuilds each message once, all its fixes fused, could not cost less.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from functools import partial

from benchmarks._conversation import build_conversation, build_rule_heavy
from benchmarks._timing import CPU, Figure, Table, gc_off, judged
from messages import Message, dump_messages, get_profile
from messages.profiles._plan import Plan
from messages.protocol import validated_call_ids

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
        full = profile.apply(dumped, on_unfixable="send")
        total += len(profile.rules)
        fired += sum(
            profile.with_rules(without=[r.id]).apply(dumped, on_unfixable="send") != full
            for r in profile.rules
        )
    return fired, total


def _model_of(profile_name: str) -> str:
    """The model string of ``MODELS`` that resolves to the profile named ``profile_name``."""
    return next(model for model in MODELS if get_profile(model).name == profile_name)


def _measure(title: str, conversation: list[Message], repeat: int) -> dict[str, float]:
    plain = "dump_messages(conversation)"
    fns: dict[str, Callable[[], object]] = {plain: lambda: dump_messages(conversation)}
    for model in MODELS:
        fns[f"model={get_profile(model).name}"] = partial(
            dump_messages, conversation, model=model, on_unfixable="send"
        )
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


def _pass_alone(plan: Plan, conversation: list[Message]) -> float:
    """The CPU time of ``plan``'s pass on a fresh dump of ``conversation`` (made outside the timing, handed
    over as ``dump_messages(model=...)`` does, with the call ids its protocol check gathers)."""
    call_ids = validated_call_ids(conversation)
    dumped = dump_messages(conversation, validate=False)
    start = CPU()
    plan.apply(dumped, owned=True, call_ids=call_ids)
    return CPU() - start


def _where_the_time_goes(title: str, conversation: list[Message], model: str, repeat: int) -> float:
    """Print the pass of ``model``'s profile split into the walk and what its costliest rules add, as shares
    of the plain dump with its protocol check; returns the walk's share.

    Every variant of the pass (whole, without one rule, without any) is timed once per round, ``repeat``
    rounds, and its best time kept: what a rule adds is the whole pass's best less the best without it.
    Shares under 0.02x are left out (they are within the noise of a shared machine)."""
    profile = get_profile(model)
    plan, provider = profile._plan, profile._plan.cx.provider
    parts = plan.cx.parts
    plans = {"": plan, " walk": Plan.of(provider, [], parts=parts)}
    for rule_id in dict.fromkeys(r.id for r in plan.rules):
        plans[rule_id] = Plan.of(provider, [r for r in plan.rules if r.id != rule_id], parts=parts)
    best = dict.fromkeys(plans, float("inf"))
    baseline = copied = float("inf")
    with gc_off():
        for _ in range(repeat):
            baseline = min(baseline, _timed(lambda: dump_messages(conversation)))
            copied = min(copied, _copy_alone(conversation))
            for name, variant in plans.items():
                best[name] = min(best[name], _pass_alone(variant, conversation))
    whole, walk = best.pop(""), best.pop(" walk")
    print(f"\n== where the time goes: {profile.name}, {title} (shares of the plain dump with its check)")
    print(f"  the whole pass{'':<34}{whole / baseline:6.2f}x")
    print(f"  the walk (the same pass with no rules){'':<10}{walk / baseline:6.2f}x")
    print(f"  for scale: one shallow copy of every message{'':<3}{copied / baseline:6.2f}x")
    added = sorted(((whole - seconds) / baseline, rule_id) for rule_id, seconds in best.items())
    for share, rule_id in reversed(added[-5:]):
        if share >= 0.02:
            print(f"  + rule {rule_id:<41}{share:6.2f}x")
    return walk / baseline


def _copy_alone(conversation: list[Message]) -> float:
    """The CPU time of one shallow copy of every message of a fresh dump of ``conversation``."""
    dumped = dump_messages(conversation, validate=False)
    start = CPU()
    [{**m} for m in dumped]
    return CPU() - start


def _timed(fn: Callable[[], object]) -> float:
    start = CPU()
    fn()
    return CPU() - start


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
    slowest = max(ratios, key=ratios.__getitem__).removeprefix("model=")
    title = "benchmark conversation"
    walk = _where_the_time_goes(title, conversation, MODELS[0], repeat)
    _where_the_time_goes(title, conversation, _model_of(slowest), repeat)
    figures.append(Figure("profiles, benchmark conversation: OpenAI's walk alone vs plain dump", walk))
    odd = build_rule_heavy(size // 4)
    fired, total = _fired(odd)
    ratios = _measure(
        f"dump a {len(odd):,}-message conversation where the rules fire ({fired} of the profiles' {total} "
        "rules change its output)",
        odd,
        repeat,
    )
    figures.append(Figure("profiles, rules firing: slowest", max(ratios.values()), TARGET))
    slowest = max(ratios, key=ratios.__getitem__).removeprefix("model=")
    _where_the_time_goes("rules firing", odd, _model_of(slowest), repeat)
    figures.append(Figure("profiles, rules firing: median", statistics.median(ratios.values())))
    return figures
