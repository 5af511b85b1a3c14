"""Run the benchmarks: ``python -m benchmarks [name ...] [--runs N]`` (all of them, 5 runs, by default).

Every figure is printed beside a baseline measured in the same run, as a ratio: these machines are noisy,
ratios hold where absolute times do not. The tables are those of the first run; the summary at the end
gives each figure of the first run with its range over all runs, next to its target.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks._timing import Figure

# name -> module; each module has `main(quick: bool) -> None`.
BENCHMARKS = {
    "core": "benchmarks.bench_core",
    "stores": "benchmarks.bench_stores",
    "profiles": "benchmarks.bench_profiles",
    "context": "benchmarks.bench_context",
    "check": "benchmarks.bench_check",
    "caching": "benchmarks.bench_caching",
    "convert": "benchmarks.bench_convert",
    "autogen": "benchmarks.bench_autogen",
    "agent-framework": "benchmarks.bench_agent_framework",
    "compaction": "benchmarks.bench_compaction",
    "turn": "benchmarks.bench_turn",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "names", nargs="*", help=f"which benchmarks, of {', '.join(BENCHMARKS)} (default: all)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="smaller inputs and fewer repeats, for a smoke run"
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=None,
        help="how many times to run each benchmark, for the ranges (default 5; 1 with --quick)",
    )
    args = parser.parse_args()
    if args.runs is None:
        args.runs = 1 if args.quick else 5
    unknown = sorted(set(args.names) - set(BENCHMARKS))
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
    runs: dict[str, list[Figure]] = {}
    order: list[str] = []
    for name in args.names or list(BENCHMARKS):
        bench = importlib.import_module(BENCHMARKS[name])
        for run in range(max(1, args.runs)):
            if run:
                print(f"[bench] {name}: run {run + 1} of {args.runs}", file=sys.stderr, flush=True)
            quiet = contextlib.redirect_stdout(io.StringIO()) if run else contextlib.nullcontext()
            with quiet:
                figures = bench.main(quick=args.quick) or []
            if not figures:
                break  # nothing to give a range for: one run is enough
            for figure in figures:
                if figure.name not in runs:
                    order.append(figure.name)
                runs.setdefault(figure.name, []).append(figure)
    print(summary(order, runs))


def summary(order: list[str], runs: dict[str, list[Figure]]) -> str:
    """Each figure of the first run, with its range over every run and its target."""
    count = max((len(found) for found in runs.values()), default=0)
    lines = [f"\n== summary: first run, and the range over {count} run(s)"]
    width = max((len(name) for name in order), default=0)
    for name in order:
        found = runs[name]
        first = found[0]
        values = [f.value for f in found]
        met = [f.met() for f in found]
        if first.target is None:
            said = ""
        elif all(met):
            said = "OK in every run"
        elif any(met):
            said = f"met in {sum(bool(m) for m in met)} of {len(met)} runs"
        else:
            said = "MISSED"
        lines.append(
            f"  {name:<{width}}  {first.value:7.2f}{first.unit:<3} range {min(values):.2f}-{max(values):.2f}"
            f"  target {first.target_text():<10} {said}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
