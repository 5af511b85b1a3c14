"""examples/llamabot_agent.py runs offline as a user would run it, in a process of its own."""

from __future__ import annotations

import re

import pytest

from tests.llamabot._shared import MISSING

pytest.importorskip("llamabot", reason=MISSING)
from tests.test_examples import SUBPROCESS, run_example


@SUBPROCESS
def test_the_llamabot_agent_answers_keeps_its_thread_and_sends_only_its_window(tmp_path, monkeypatch):
    # llamabot writes its message log under the project's root (pyprojroot's here()): run as a user would,
    # from a project of its own.
    (tmp_path / ".here").touch()
    monkeypatch.chdir(tmp_path)
    out = run_example("llamabot_agent.py")
    lines = out.splitlines()
    assert [line for line in lines if line.startswith("  agent: ")] == [
        "  agent: It is 20.",
        "  agent: It is 45.",
        "  agent: It is 20.",
    ]
    assert "  [stored: 7 messages; sent: 6 messages]" in lines
    assert "  [stored: 14 messages; sent: 8 messages]" in lines
    calls = re.findall(r"^  assistant (\w+)\(.*\) \[(call_\d+)\]$", out, re.MULTILINE)
    answered = re.findall(r"^  tool .* \[answers (call_\d+)\]$", out, re.MULTILINE)
    assert [name for name, _ in calls] == ["add", "multiply", "respond_to_user"]
    assert [call_id for _, call_id in calls] == answered
    assert "  bot: I see 9 messages: 3 tool results, each after its call." in lines
    assert lines[-1] == "10 requests to the stand-in OpenAI, at most 9 messages each"
    assert (tmp_path / ".llamabot" / "message_log.db").is_file()
