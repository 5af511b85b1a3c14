"""The benchmarks still run (a smoke run on small inputs); their figures are read by people, never
asserted here: these machines are too noisy for timed assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Each smoke run is a process of its own that measures for seconds: left out of the quick loop.
pytestmark = pytest.mark.slow


def quick_run(*names: str) -> str:
    """What ``python -m benchmarks --quick NAMES`` prints; it must exit 0."""
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", *names],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_the_quick_benchmarks_run_and_print_their_verdicts():
    # The stores benchmark measures PostgreSQL too when the suite has a server (in a schema it drops).
    out = quick_run("core", "profiles", "stores")
    titles = (
        "dump a 2,000-message",
        "load a 2,000-message mixed",
        "load a 2,000-message tool-heavy",
        "import cost",
        "with each provider profile",
        "where the rules fire",
        "where the time goes: openai, benchmark conversation",
    )
    assert all(title in out for title in titles), out
    verdicts = [line for line in out.splitlines() if "(target" in line]
    assert any("dump vs the hand-built floor" in line for line in verdicts), out
    assert any("tool-heavy: load vs msgspec decode" in line for line in verdicts), out
    assert any("profiles within 1.5x" in line for line in out.splitlines()), out
    assert any("batched appends" in line for line in verdicts), out
    summary = out.split("== summary: first run, and the range over 1 run(s)", 1)[1]
    for figure in (
        "dump vs the hand-built floor",
        "profiles, rules firing: slowest",
        "profiles, benchmark conversation: OpenAI's walk alone vs plain dump",
        "messages() vs json.loads",
    ):
        assert figure in summary, summary


def test_the_quick_context_benchmark_runs_and_prints_its_ratios():
    # --quick keeps it to a few seconds besides the imports: small sizes, litellm calls capped at 1 s.
    out = quick_run("context")
    for size in ("100", "1,000"):
        assert f"== {size} messages, one at a time" in out, out
    assert "litellm trim_messages, once on the whole list" in out, out
    assert "langchain trim_messages, once on the whole list" in out, out
    growth = out.split("== growth of our per-message cost", 1)[1]
    assert "litellm counts" in growth, out
    assert "chars counts" in growth, out
    assert "100 -> 1,000:" in growth, out
    assert "1,000: ours, the last window:" in out, out


def test_the_quick_check_benchmark_runs_and_prints_its_ratio():
    out = quick_run("check")
    assert "== messages check --model mistral/mistral-large-latest on a request log" in out, out
    assert "per-message cost 100 -> 1,000:" in out, out
    assert "(target <= 1.5x" in out, out
    assert "difflib matcher" in out, out


def test_the_quick_convert_benchmark_runs_and_prints_every_ratio():
    out = quick_run("convert")
    summary = out.split("== summary", 1)[1]
    for what in (
        "LangChain messages -> ours",
        "ours -> LangChain",
        "pydantic-ai history -> ours",
        "ours -> pydantic-ai",
        "Responses items -> ours",
        "ours -> Responses items",
    ):
        assert what in summary, out
    assert summary.count("x\n") >= 6, out


def test_the_quick_autogen_benchmark_runs_beside_autogens_own_windows():
    out = quick_run("autogen")
    assert "get_messages() of a buffered window (20) over 2,000 messages" in out, out
    assert "AutoGen BufferedChatCompletionContext" in out, out
    summary = out.split("== summary", 1)[1]
    for figure in ("get_messages, buffered, ours vs AutoGen's", "read + convert, 10x the history vs 1x"):
        assert figure in summary, summary


def test_the_quick_agent_framework_benchmark_runs_beside_agent_frameworks_own_providers():
    out = quick_run("agent-framework")
    for size in ("200", "1,000"):
        assert f"== a turn of history over {size} messages" in out, out
    for provider in ("InMemoryHistoryProvider (Agent Framework)", "FileHistoryProvider (Agent Framework)"):
        assert provider in out, out
    summary = out.split("== summary", 1)[1]
    assert "ours (window 50), 1,000 vs 200 msgs" in summary, summary
    assert "FileHistoryProvider vs InMemoryHistoryProvider" in summary, summary


def test_the_quick_compaction_benchmark_runs_and_prints_the_cache_shares_side_by_side():
    out = quick_run("compaction")
    assert "== per-turn read after a checkpoint" in out, out
    assert "SQLite        10,000  read" in out, out
    for approach in (
        "messages.compaction (checkpoints, stable window)",
        "TokenLimitedContext (slides every turn)",
        "LangChain SummarizationMiddleware (langchain 1.4)",
        "whole history, unwindowed (reference)",
    ):
        assert approach in out, out
    assert "SQLite: read after a checkpoint, 10,000 vs 1,000" in out, out


def test_the_quick_openai_agents_benchmark_runs_beside_the_sdks_own_sessions():
    out = quick_run("openai-agents")
    for size in ("200", "2,000"):
        assert f"== get_items() of a session of {size} items" in out, out
        assert f"== get_items(limit=50) of a session of {size} items" in out, out
    for session in ("SQLiteSession (SDK)", "SQLAlchemySession, SQLite (SDK)", "ours, AsyncSQLiteThreadStore"):
        assert session in out, out
    summary = out.split("== summary", 1)[1]
    assert "get_items(limit=50), ours (SQLite), 2,000 vs 200 items" in summary, summary
    assert "loop lag, limit=50 of 2,000 items, ours (AsyncSQLiteThreadStore)" in summary, summary


def test_the_quick_turn_benchmark_runs_every_window_beside_the_floor_and_litellm():
    # --quick: threads of 100 messages, SQLite at one setting (and PostgreSQL when the suite has a server),
    # 4 rounds: 7 s in all with the machine to itself, most of it importing litellm.
    out = quick_run("turn")
    litellm = out.split("== litellm.completion of each kind of turn's own request", 1)[1]
    table = out.split("== SQLite synchronous=NORMAL: the package's turn beside the floor", 1)[1]
    for conversation in ("chat", "tool-heavy"):
        for window in ("buffered", "head-and-tail", "token-limited", "compacting", "buffered, 1 write"):
            assert f"{conversation:<10}  {window:<17}" in table, out
            assert f"{conversation:<10}  {window:<17}" in litellm.split("\n==", 1)[0], out
    assert "== the turn that writes once" in out, out
    summary = out.split("== summary", 1)[1]
    assert "SQLite synchronous=NORMAL: slowest turn vs the floor" in summary, summary
    assert "SQLite synchronous=NORMAL: largest share of litellm's call" in summary, summary
