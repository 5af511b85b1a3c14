"""Run the benchmarks: ``python -m benchmarks [name ...]`` (all of them by default).

Every figure is printed beside a baseline measured in the same run, as a ratio: these machines are noisy,
ratios hold where absolute times do not.
"""

from __future__ import annotations

import argparse
import importlib
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

# name -> module; each module has `main(quick: bool) -> None`.
BENCHMARKS = {
    "core": "benchmarks.bench_core",
    "stores": "benchmarks.bench_stores",
    "profiles": "benchmarks.bench_profiles",
    "context": "benchmarks.bench_context",
    "convert": "benchmarks.bench_convert",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "names", nargs="*", help=f"which benchmarks, of {', '.join(BENCHMARKS)} (default: all)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="smaller inputs and fewer repeats, for a smoke run"
    )
    args = parser.parse_args()
    unknown = sorted(set(args.names) - set(BENCHMARKS))
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
    for name in args.names or list(BENCHMARKS):
        importlib.import_module(BENCHMARKS[name]).main(quick=args.quick)


if __name__ == "__main__":
    main()
