"""``messages check --model mistral/mistral-large-latest`` on request logs of 1,000, 10,000 and 100,000
messages: its cost per message should not grow with the log (issue 13: 71 s at 100,000 messages against
1.3 s at 10,000, spent in ``difflib``).

Each log is the benchmark conversation (``benchmarks._conversation``: text, parallel tool calls, their
results, some images) dumped as a request log ``{"model", "messages"}`` and written to a file; the command
runs in-process (``messages.cli.main``), reading the file and writing its report to a buffer, as a user
runs it. Mistral is the profile of the issue's measurement: every tool-call id breaks its rule, so every
call and result is reported and rewritten, and the report is long.

The sizes are timed in interleaved rounds (best of 3; the 1,000-message log runs ten times per timing),
so that a drifting machine load does not skew the ratio between sizes, which is the figure: the cost per
message at 100,000 over the cost at 10,000, target at most 1.5x (1.0x is linear; the comparison the check
used before grew about 5x per size step).

Beside it, the part that was quadratic, in the same run: the comparison of the list before and after the
profile (``messages._check.compare``), one pass now, against ``difflib.SequenceMatcher``'s alignment that
it replaced (the oracle of ``tests/test_check_compare.py``), at 1,000 and 10,000 messages.

``--quick`` (the smoke run of the test suite) measures 100 and 1,000 messages, once each.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import json
import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from benchmarks._conversation import build_conversation
from benchmarks._timing import fmt_time, interleaved
from messages import _check as check
from messages import dump_messages, get_profile
from messages.cli import main as messages_main

MODEL = "mistral/mistral-large-latest"
TARGET = 1.5


def run_check(path: Path, times: int) -> None:
    """``messages check --model MODEL path``, ``times`` times, its report written to a buffer."""
    for _ in range(times):
        with contextlib.redirect_stdout(io.StringIO()):
            status = messages_main(["check", "--model", MODEL, str(path)])
        assert status == 1, status  # the ids are reported


def _matcher_gaps(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [(i1, i2, j1, j2) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal"]


def compare_by_matcher(before: list[dict[str, object]], after: list[dict[str, object]]) -> check.Changes:
    """``compare`` with the alignment it replaced (``difflib.SequenceMatcher``)."""
    module = vars(check)
    saved = {name: module[name] for name in ("_gaps", "_SMALL_GAP")}
    module.update(_gaps=_matcher_gaps, _SMALL_GAP=10**9)
    try:
        return check.compare(before, after)
    finally:
        module.update(saved)


def main(quick: bool = False) -> None:
    sizes = [100, 1_000] if quick else [1_000, 10_000, 100_000]
    repeat = 1 if quick else 3
    per_timing = sizes[-1] // 10  # each timing checks at least this many messages (short logs repeat)
    runs = {size: max(1, per_timing // size) for size in sizes}
    with tempfile.TemporaryDirectory() as folder:
        paths: dict[int, Path] = {}
        for size in sizes:
            paths[size] = Path(folder) / f"log-{size}.json"
            log = {"model": MODEL, "messages": dump_messages(build_conversation(size))}
            paths[size].write_text(json.dumps(log), encoding="utf-8")
        best = interleaved(
            {str(size): partial(run_check, paths[size], runs[size]) for size in sizes}, repeat=repeat
        )
    per_message = {size: best[str(size)] / (runs[size] * size) for size in sizes}

    print(f"\n== messages check --model {MODEL} on a request log: cost per message")
    first = sizes[0]
    for size in sizes:
        growth = per_message[size] / per_message[first]
        print(
            f"  {size:>7,} messages  {fmt_time(per_message[size])} per message  "
            f"{fmt_time(per_message[size] * size)} per log  {growth:5.2f}x (vs {first:,})"
        )
    low, high = sizes[-2], sizes[-1]
    ratio = per_message[high] / per_message[low]
    verdict = "ok" if ratio <= TARGET else "OVER"
    print(
        f"  per-message cost {low:,} -> {high:,}: {ratio:.2f}x (target <= {TARGET}x: {verdict}; "
        "1.00x is linear)"
    )

    # The comparison alone, one pass against the matcher it replaced.
    profile = get_profile(MODEL)
    sizes_compared = [100, 1_000] if quick else [1_000, 10_000]
    compared = {}
    for size in sizes_compared:
        before = dump_messages(build_conversation(size))
        after = profile.apply(before, on_unfixable="send")
        assert check.compare(before, after) == compare_by_matcher(before, after)
        compared[f"one pass {size}"] = partial(check.compare, before, after)
        compared[f"matcher {size}"] = partial(compare_by_matcher, before, after)
    times = interleaved(compared, repeat=repeat)
    print("\n== the comparison before/after the profile (messages._check.compare), per message")
    for size in sizes_compared:
        ours, theirs = times[f"one pass {size}"] / size, times[f"matcher {size}"] / size
        print(
            f"  {size:>7,} messages  one pass {fmt_time(ours)}  difflib matcher {fmt_time(theirs)}  "
            f"(matcher / one pass: {theirs / ours:.1f}x)"
        )
