"""Every example runs offline from a clean checkout, as a user would run it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run_example(name: str, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True, env=env, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_tool_loop_calls_both_tools_and_answers():
    out = run_example("tool_loop.py")
    lines = out.splitlines()
    assert lines[0].startswith("system: ")
    assert lines[1] == "user: What's the weather and the time in Paris and Tokyo?"
    calls = [line for line in lines if line.startswith("assistant -> ")]
    assert {line.split("(")[0] for line in calls} == {"assistant -> get_weather", "assistant -> get_time"}
    assert len(calls) == 4  # two cities, two tools, in one parallel turn
    results = [line for line in lines if line.startswith("tool [")]
    assert len(results) == 4
    assert any('"sky":"light rain"' in line for line in results)
    final = [line for line in lines if line.startswith("assistant: ")]
    assert len(final) == 1
    assert "light rain" in final[0]
    assert "2 requests to the stand-in provider" in out


def test_tool_loop_takes_a_question_and_answers_without_tools_when_none_fit():
    out = run_example("tool_loop.py", "Tell me a joke")
    assert "assistant -> " not in out
    assert "assistant: I can tell the weather" in out


def test_tool_loop_refuses_a_model_without_its_key():
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "tool_loop.py"), "--model", "openai/gpt-4o-mini"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 2
    assert "OPENAI_API_KEY" in result.stderr
