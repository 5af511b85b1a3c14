"""Timing helpers: the best of several runs (the least disturbed by a noisy machine), printed as ratios.

Work that runs in this process alone is timed in CPU time (``time.process_time``): on a machine shared
with other jobs, time spent waiting for a core is not the code's. Work that waits for another process (a
database server) is timed on the wall clock (``WALL``).
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

Clock = Callable[[], float]
CPU: Clock = time.process_time
"""CPU time of this process: for what runs here alone (the default)."""
WALL: Clock = time.perf_counter
"""Wall time: for what waits on another process (a database server, a subprocess)."""


@dataclass(frozen=True)
class Figure:
    """One measured figure and its target: what the summary of several runs gives a range for."""

    name: str
    value: float
    target: float | None = None
    below: bool = True
    """Whether the target is a ceiling (the figure must be at most ``target``) or a floor."""
    unit: str = "x"

    def met(self) -> bool | None:
        if self.target is None:
            return None
        return self.value <= self.target if self.below else self.value >= self.target

    def target_text(self) -> str:
        if self.target is None:
            return "(reference)"
        return f"{'<=' if self.below else '>='} {self.target:g}{self.unit}"


@contextmanager
def gc_off() -> Iterator[None]:
    """The cyclic garbage collector off while timing (its pauses land on whichever run is unlucky)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def best_of(fn: Callable[[], Any], *, repeat: int = 7, number: int = 1, clock: Clock = CPU) -> float:
    """The fastest of ``repeat`` runs of ``number`` calls, in seconds per call; GC off while timing."""
    fn()  # warm up: first-call imports and caches are not what is measured
    best = float("inf")
    with gc_off():
        for _ in range(repeat):
            start = clock()
            for _ in range(number):
                fn()
            best = min(best, (clock() - start) / number)
    return best


def interleaved(
    fns: Mapping[str, Callable[[], Any]], *, repeat: int = 7, clock: Clock = CPU
) -> dict[str, float]:
    """The best time of each function, measured in rounds that run every function once.

    Interleaving spreads slow spells of a noisy machine over all candidates instead of one of them, so
    that the ratios between them hold even when absolute times drift.
    """
    for fn in fns.values():
        fn()  # warm up
    best = dict.fromkeys(fns, float("inf"))
    with gc_off():
        for _ in range(repeat):
            for name, fn in fns.items():
                start = clock()
                fn()
                best[name] = min(best[name], clock() - start)
    return best


def paired(
    baseline: Callable[[], Any],
    fns: Mapping[str, Callable[[], Any]],
    *,
    repeat: int = 7,
    clock: Clock = CPU,
) -> dict[str, tuple[float, float]]:
    """For each function: the median of its time over the baseline's time measured right beside it, and
    its best time, from ``repeat`` rounds.

    Each ratio comes from two runs back to back (the baseline first in even rounds, last in odd ones), so
    a slow spell of a noisy machine that lasts longer than the pair slows both and leaves the ratio; the
    median drops the pairs it split. Steadier than a ratio of best times when there are many candidates.
    """
    baseline()
    for fn in fns.values():
        fn()  # warm up
    ratios: dict[str, list[float]] = {name: [] for name in fns}
    best = dict.fromkeys(fns, float("inf"))
    with gc_off():
        for round_ in range(repeat):
            for name, fn in fns.items():
                pair = (baseline, fn) if round_ % 2 == 0 else (fn, baseline)
                times = []
                for run in pair:
                    start = clock()
                    run()
                    times.append(clock() - start)
                base, own = times if round_ % 2 == 0 else times[::-1]
                ratios[name].append(own / base)
                best[name] = min(best[name], own)
    return {name: (statistics.median(ratios[name]), best[name]) for name in fns}


def paired_collector_on(
    baseline: Callable[[], Any], fn: Callable[[], Any], *, repeat: int = 7, clock: Clock = CPU
) -> float:
    """The median over ``repeat`` pairs of ``fn``'s time over ``baseline``'s, as ``paired`` but with the
    cyclic garbage collector on, as users run, and a full collection before each run (so that no run
    inherits the other's garbage)."""
    enabled = gc.isenabled()
    gc.enable()
    try:
        ratios = []
        for round_ in range(repeat):
            times = {}
            pair = (("base", baseline), ("own", fn))
            for name, run in pair if round_ % 2 == 0 else pair[::-1]:
                gc.collect()
                start = clock()
                run()
                times[name] = clock() - start
            ratios.append(times["own"] / times["base"])
    finally:
        if not enabled:
            gc.disable()
    return statistics.median(ratios)


def fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:8.2f} s "
    if seconds >= 1e-3:
        return f"{seconds * 1e3:8.2f} ms"
    return f"{seconds * 1e6:8.2f} us"


@dataclass
class Table:
    """Rows of (what, time) printed with each time's ratio to a baseline row."""

    title: str
    rows: list[tuple[str, float]] = field(default_factory=list)
    ratios: dict[str, float] = field(default_factory=dict)
    """Ratios to the baseline measured in pairs (``measure_paired``); other rows use their times."""
    clock: Clock = CPU

    def add(self, name: str, seconds: float) -> float:
        self.rows.append((name, seconds))
        return seconds

    def measure(self, fns: Mapping[str, Callable[[], Any]], *, repeat: int = 7) -> dict[str, float]:
        """Time ``fns`` interleaved (see ``interleaved``) and add a row for each."""
        times = interleaved(fns, repeat=repeat, clock=self.clock)
        for name, seconds in times.items():
            self.add(name, seconds)
        return times

    def measure_paired(
        self, baseline: str, fns: Mapping[str, Callable[[], Any]], *, repeat: int = 7
    ) -> dict[str, float]:
        """Time every function of ``fns`` beside ``fns[baseline]`` (see ``paired``); add a row for each.

        Returns each one's ratio to the baseline (the median of the pairs), the baseline's own being 1.
        """
        base = fns[baseline]
        others = {name: fn for name, fn in fns.items() if name != baseline}
        found = paired(base, others, repeat=repeat, clock=self.clock)
        self.add(baseline, best_of(base, repeat=repeat, clock=self.clock))
        self.ratios[baseline] = 1.0
        for name, (ratio, seconds) in found.items():
            self.add(name, seconds)
            self.ratios[name] = ratio
        return dict(self.ratios)

    def show(self, baseline: str, *, notes: list[str] | None = None) -> None:
        base = dict(self.rows)[baseline]
        width = max(len(name) for name, _ in self.rows)
        print(f"\n== {self.title}")
        for name, seconds in self.rows:
            if name in self.ratios:
                how = "median of pairs with" if name != baseline else "vs"
                print(
                    f"  {name:<{width}}  {fmt_time(seconds)}  {self.ratios[name]:6.2f}x  ({how} {baseline})"
                )
            else:
                print(f"  {name:<{width}}  {fmt_time(seconds)}  {seconds / base:6.2f}x  (vs {baseline})")
        for note in notes or []:
            print(f"  {note}")


def verdict(label: str, ratio: float, target: float, *, below: bool = True) -> str:
    """One line saying whether a ratio meets its target."""
    ok = ratio <= target if below else ratio >= target
    sign = "<=" if below else ">="
    return f"{label}: {ratio:.2f}x (target {sign} {target}x) {'OK' if ok else 'MISSED'}"


def judged(figure: Figure) -> str:
    """One line for a figure: its value, its target and whether this run met it."""
    met = figure.met()
    said = "" if met is None else (" OK" if met else " MISSED")
    return f"{figure.name}: {figure.value:.2f}{figure.unit} (target {figure.target_text()}){said}"
