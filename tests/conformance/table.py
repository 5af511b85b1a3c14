"""The conformance table: providers x hard cases, for "litellm alone" (the plain dump) and "with
profiles" (``dump_messages(conversation, model=...)``), each cell ``ok`` or the ids of the broken rules
(quirk numbers; see ``tests/conformance/rules.py`` for the ids that are not quirks), plus a column
of generated conversations (``messages.strategies.conversations``).

    python3 scripts/dev.py conformance        # or: make conformance
    python -m tests.conformance.table --examples 40 --provider mistral --verbose

With the Mistral provider, a mistral-common column follows: Mistral's own validator and tokenizer on the
bodies litellm sends, over the hard cases and ``--mistral-examples`` (500) generated conversations.

``--outcomes N`` prints another table instead: N generated conversations per provider, as drawn (audio,
files, video included), each counted as accepted, refused before sending, or sent and rejected
(``tests/conformance/outcomes.py``):

    python3 scripts/dev.py conformance --outcomes 200
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _generated(count: int, seed: int) -> list[Any]:
    """``count`` conversations drawn from ``messages.strategies.conversations()``, the same every run."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as seeded

    from messages import strategies as ms

    drawn: list[Any] = []

    @seeded(seed)
    @settings(max_examples=count, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(ms.conversations(max_turns=6))
    def collect(conversation: list[Any]) -> None:
        drawn.append(conversation)

    collect()
    return drawn[:count]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=20, help="generated conversations per provider")
    parser.add_argument("--seed", type=int, default=4, help="seed of the generated conversations")
    parser.add_argument("--provider", action="append", help="only these providers (repeatable)")
    parser.add_argument("--verbose", action="store_true", help="print every violation under the table")
    parser.add_argument(
        "--outcomes",
        type=int,
        default=0,
        metavar="N",
        help="instead of the tables: N generated conversations per provider, each counted as accepted, "
        "refused before sending or sent and rejected (tests/conformance/outcomes.py)",
    )
    parser.add_argument(
        "--mistral-examples",
        type=int,
        default=500,
        help="generated conversations for the mistral-common column (0: none)",
    )
    args = parser.parse_args(argv)

    import litellm

    litellm.disable_hf_tokenizer_download = True
    litellm.suppress_debug_info = True
    import logging

    logging.getLogger("LiteLLM").setLevel(logging.CRITICAL)

    if args.outcomes:
        from tests.conformance.outcomes import print_table, run_outcomes
        from tests.conformance.providers import PROVIDERS

        chosen = [p for p in PROVIDERS if not args.provider or p.key in args.provider]
        started = time.perf_counter()
        rows = run_outcomes(litellm, chosen, _generated(args.outcomes, args.seed))
        print_table(rows, args.outcomes, args.seed, time.perf_counter() - started)
        return 0

    from messages.testing import StandInServer
    from tests.conformance.cases import CASES
    from tests.conformance.harness import HANDOFF_SOURCES, HAVE_PROFILES, Outcome, produced_on, run, sendable
    from tests.conformance.providers import PROVIDERS

    providers = [p for p in PROVIDERS if not args.provider or p.key in args.provider]
    by_key = {p.key: p for p in PROVIDERS}
    handoffs = {key: produced_on(litellm, by_key[key]) for key in HANDOFF_SOURCES}
    generated = _generated(args.examples, args.seed) if args.examples else []
    modes = [("litellm alone", False)] + ([("with profiles", True)] if HAVE_PROFILES else [])
    started = time.perf_counter()
    details: list[str] = []
    with StandInServer() as server:
        for title, profiles in modes:
            rows: list[list[str]] = []
            totals = [0, 0]
            for provider in providers:
                row = [provider.key]
                for name, build in CASES.items():
                    outcome: Outcome = run(litellm, server, provider, build(), profiles=profiles)
                    row.append(",".join(outcome.rules) or ("refused" if outcome.refused else "ok"))
                    totals[0] += not outcome.rules
                    totals[1] += 1
                    if args.verbose and outcome.violations:
                        details.append(
                            f"[{title}] {provider.key} / {name}:\n  " + outcome.report().replace("\n", "\n  ")
                        )
                if generated:
                    passed = 0
                    failed_rules: set[str] = set()
                    for number, conversation in enumerate(generated, 1):
                        outcome = run(
                            litellm, server, provider, sendable(conversation, provider), profiles=profiles
                        )
                        if args.verbose and outcome.violations:
                            report = outcome.report().replace("\n", "\n  ")
                            details.append(f"[{title}] {provider.key} / generated {number}:\n  {report}")
                        passed += not outcome.rules
                        failed_rules.update(outcome.rules)
                    cell = f"{passed}/{len(generated)}"
                    if failed_rules:
                        cell += " " + ",".join(sorted(failed_rules, key=lambda r: (len(r), r)))
                    row.append(cell)
                failing = []
                for source, conversation in handoffs.items():
                    outcome = run(litellm, server, provider, conversation, profiles=profiles)
                    if outcome.rules:
                        failing.append(f"{source}:{','.join(outcome.rules)}")
                        if args.verbose:
                            report = outcome.report().replace("\n", "\n  ")
                            details.append(f"[{title}] {provider.key} / from {source}:\n  {report}")
                row.append(f"{len(handoffs) - len(failing)}/{len(handoffs)}")
                rows.append(row)
            numbers = [str(n) for n in range(1, len(CASES) + 1)]
            header = ["provider", *numbers, *(["generated"] if generated else []), "handoffs"]
            print(f"\n## {title}: {totals[0]}/{totals[1]} hard-case cells pass\n")
            _print(header, rows)
        if "mistral" in by_key and any(p.key == "mistral" for p in providers):
            _mistral_common_column(litellm, server, args.mistral_examples, args.seed)
    print("\ncases: " + "; ".join(f"{n} {name}" for n, name in enumerate(CASES, 1)))
    print(
        "generated: conversations from messages.strategies.conversations() that pass, and the rules others"
        f" break; handoffs: conversations produced on {', '.join(HANDOFF_SOURCES)} that pass when continued"
        " here; rule ids: quirks (r13 = quirk 13, which `messages quirks 13` prints), ph (litellm's"
        " placeholder text), lost (a text or tool result missing), foreign (another provider's reasoning"
        " payload), sdk (the provider SDK's request type refuses the body), mc (mistral-common, Mistral's"
        " own validator and tokenizer, refuses the body), raised (litellm raised instead of sending)"
    )
    from tests.conformance.known import KNOWN

    print("\nknown failures (strict xfails in tests/conformance/test_conformance.py):")
    for known in KNOWN:
        print(
            f"  {known.rule} on {', '.join(sorted(known.providers))} ({', '.join(known.cases[:3])}"
            f"{', ...' if len(known.cases) > 3 else ''}): {known.reason}"
        )
    if not HAVE_PROFILES:
        print("\n(with profiles: messages.profiles is not in this tree yet)")
    print(
        f"\n{len(providers)} providers, {len(CASES)} hard cases, {len(generated)} generated conversations;"
        f" {time.perf_counter() - started:.1f} s"
    )
    if details:
        print("\n" + "\n".join(details))
    return 0


def _mistral_common_column(litellm: Any, server: Any, examples: int, seed: int) -> None:
    """mistral-common (Mistral's own validator and v7 tokenizer) on what litellm sends to Mistral: the hard
    cases and ``examples`` generated conversations, litellm alone and with profiles, with the errors left."""
    from collections import Counter

    from messages import dump_messages, get_profile
    from tests.conformance.cases import CASES
    from tests.conformance.harness import run, sendable
    from tests.conformance.providers import BY_KEY

    provider = BY_KEY["mistral"]
    generated = _generated(examples, seed) if examples else []
    conversations = [c() for c in CASES.values()] + [sendable(c, provider) for c in generated]
    rows = []
    for title, profiles in (("litellm alone", False), ("with profiles", True)):
        passed = [0, 0]
        errors: Counter[str] = Counter()
        unfixable = 0
        for number, conversation in enumerate(conversations):
            outcome = run(litellm, server, provider, conversation, profiles=profiles)
            refused = [v.message for v in outcome.violations if v.rule == "mc"]
            passed[number >= len(CASES)] += not refused
            for message in refused:
                errors[message.split(":", 1)[-1].strip()[:70]] += 1
            if refused and profiles:
                sent = dump_messages(conversation, model=provider.model)
                unfixable += any(not v.fixable for v in get_profile(provider.model).check(sent))
        left = "; ".join(f"{count}x {error}" for error, count in errors.most_common(4)) or "-"
        if profiles:
            left += f" (check reports {unfixable} of {sum(errors.values())} as not fixable)"
        rows.append([title, f"{passed[0]}/{len(CASES)}", f"{passed[1]}/{len(generated)}", left])
    print("\n## mistral-common: Mistral's own request validator and v7 tokenizer (serving mode), on the body")
    print("litellm sends to mistral/ (tests/oracles.py names the adaptations: prefix, image, file)\n")
    _print(["mistral", "hard cases", "generated", "errors"], rows)


def _print(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
    print(line)
    print("-|-".join("-" * w for w in widths))
    for row in rows:
        print(" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))


if __name__ == "__main__":
    sys.exit(main())
