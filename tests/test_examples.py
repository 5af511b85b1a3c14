"""Every example runs offline from a clean checkout, as a user would run it."""

from __future__ import annotations

import asyncio
import atexit
import importlib
import io
import os
import re
import subprocess
from pathlib import Path

import pytest

from messages.testing import StandInServer
from tests._zygote import Zygote

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

SUBPROCESS = pytest.mark.slow
"""A test that starts the example as a process of its own (a few seconds each, most of it litellm's
import): left out of the quick loop (`scripts/dev.py test --quick`), run by the full suite."""


_zygote: list[Zygote] = []


def start_example(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``examples/<name>`` as a user without provider keys would: ``python examples/<name> ARGS``, in a
    process of its own, forked from one that has imported litellm and the package already
    (tests/_zygote.py: the same run without paying the imports again for each example)."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    if not _zygote:
        _zygote.append(Zygote.start(preload=["litellm", "messages"]))
        atexit.register(_zygote[0].close)
    # A hang guard, not a speed claim: the slowest example took 182 s on a loaded 2-core machine (issue 42);
    # under pytest-timeout's 600 s, so that the example's own output is what a failure shows.
    return _zygote[0].run(EXAMPLES / name, list(args), env=env, timeout=540)


def run_example(name: str, *args: str) -> str:
    """What ``examples/<name>`` prints, once it has succeeded."""
    result = start_example(name, *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


@SUBPROCESS
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


@SUBPROCESS
def test_tool_loop_takes_a_question_and_answers_without_tools_when_none_fit():
    out = run_example("tool_loop.py", "Tell me a joke")
    assert "assistant -> " not in out
    assert "assistant: I can tell the weather" in out


@SUBPROCESS
def test_tool_loop_refuses_a_model_without_its_key():
    result = start_example("tool_loop.py", "--model", "openai/gpt-4o-mini")
    assert result.returncode == 2
    assert "OPENAI_API_KEY" in result.stderr


@SUBPROCESS
def test_streaming_bot_streams_the_tool_calls_then_the_answer():
    out = run_example("streaming_bot.py")
    lines = out.splitlines()
    assert lines[0] == "user: What's the weather and the time in Paris and Tokyo?"
    calls = [line for line in lines if line.startswith("assistant -> ")]
    assert calls == [
        'assistant -> get_weather({"city":"Paris"})',
        'assistant -> get_weather({"city":"Tokyo"})',
        'assistant -> get_time({"timezone":"Europe/Paris"})',
        'assistant -> get_time({"timezone":"Asia/Tokyo"})',
    ]
    assert len([line for line in lines if line.startswith("tool [")]) == 4
    [final] = [line for line in lines if line.startswith("assistant: ")]
    assert "light rain" in final
    finishes = [line.strip() for line in lines if line.startswith("  [")]
    assert [f.split(",")[0] for f in finishes] == ["[tool_calls", "[stop"]
    assert all("prompt +" in f and "completion tokens]" in f for f in finishes)
    assert "(2 streamed requests to the stand-in provider" in out


@pytest.mark.litellm
@pytest.mark.parametrize("use_async", [False, True], ids=["completion", "acompletion"])
def test_streaming_bot_prints_text_and_arguments_as_they_arrive(litellm, monkeypatch, use_async):
    # In-process, to see the writes themselves: each tool call's arguments and the answer arrive in
    # several pieces and are printed piece by piece, before the stream has ended.
    monkeypatch.syspath_prepend(str(EXAMPLES))
    streaming_bot = importlib.import_module("streaming_bot")

    class Recorder(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.writes: list[str] = []

        def write(self, text: str) -> int:
            self.writes.append(text)
            return super().write(text)

    out = Recorder()
    with StandInServer(streaming_bot.offline_model) as server:
        send = {"model": "openai/gpt-4o-mini", "out": out, "api_base": server.url, "api_key": "x"}
        if use_async:
            conversation = asyncio.run(streaming_bot.achat("Weather in Paris?", **send))
        else:
            conversation = streaming_bot.chat("Weather in Paris?", **send)
    arguments = conversation[2].tool_calls[0].arguments
    assert arguments == '{"city":"Paris"}'
    header = out.writes.index("assistant -> get_weather(")
    pieces = out.writes[header + 1 : out.writes.index(")", header)]
    assert len(pieces) > 1
    assert "".join(pieces) == arguments
    call_id = conversation[2].tool_calls[0].id
    assert f'tool [{call_id}]: {{"city":"Paris","sky":"light rain","celsius":14}}\n' in out.writes
    answer = conversation[-1].content
    start = out.writes.index("assistant: ")
    end = next(i for i, w in enumerate(out.writes) if i > start and w.startswith("\n  [stop"))
    text_pieces = out.writes[start + 1 : end]
    assert len(text_pieces) > 1
    assert "".join(text_pieces) == answer
    assert "light rain" in answer


@SUBPROCESS
def test_streaming_bot_refuses_a_model_without_its_key():
    result = start_example("streaming_bot.py", "--model", "openai/gpt-4o-mini")
    assert result.returncode == 2
    assert "OPENAI_API_KEY" in result.stderr
    assert result.stdout == ""


@SUBPROCESS
def test_long_chat_window_stays_within_its_limit_and_restores():
    out = run_example("long_chat.py", "--turns", "40", "--limit", "600")
    rows = [line for line in out.splitlines() if line.startswith("turn ")]
    assert [row.split(":")[0] for row in rows] == ["turn   20", "turn   40"]
    for row in rows:
        history = int(row.split("history")[1].split("messages")[0])
        window = int(row.split("window")[1].split("messages")[0])
        used, limit = (int(x) for x in row.split("messages,")[2].split("tokens")[0].split(" of "))
        assert window < history
        assert used <= limit == 600
    assert "restored window identical: True" in out


@SUBPROCESS
def test_compacting_chat_writes_checkpoints_keeps_every_message_and_its_prefix_between_them():
    out = run_example("compacting_chat.py", "--turns", "16", "--limit", "500")
    rows = [line for line in out.splitlines() if line.startswith("turn ")]
    compacted = [row for row in rows if row.endswith("compacted")]
    assert len(compacted) >= 2
    for row in rows:
        used, limit = (int(x) for x in row.split("messages,")[2].split("tokens")[0].split(" of "))
        assert used <= limit == 500
    checkpoints = [int(row.split("checkpoints")[1].split(",")[0]) for row in rows]
    assert checkpoints == sorted(checkpoints)
    assert "0 of them without a checkpoint just before" in out
    stored = int(re.search(r"(\d+) messages stored, none rewritten", out).group(1))  # type: ignore[union-attr]
    assert stored == int(rows[-1].split("thread")[1].split("messages")[0])
    assert "summarizer openai/gpt-4o-mini" in out
    assert "[Summary of the earlier conversation" in out


@SUBPROCESS
def test_persist_thread_is_continued_by_a_second_process():
    out = run_example("persist_thread.py")
    first, second = (line for line in out.splitlines() if line.startswith("[process"))
    assert first.split("]")[0] != second.split("]")[0]  # two processes
    assert "6 messages stored" in first
    assert "reloaded 6 messages (2 tool calls)" in second
    assert "'home': 'Paris'" in second
    lines = out.splitlines()
    assert "user: And the time in Tokyo?" in lines
    assert lines[-1].startswith("assistant: Tokyo: clear, 22 °C; local time")


@SUBPROCESS
def test_switch_provider_continues_one_conversation_on_four_providers():
    out = run_example("switch_provider.py")
    hops = [line for line in out.splitlines() if line.startswith("== ")]
    assert [h.split()[1] for h in hops] == [
        "openai/gpt-4o-mini",
        "gemini/gemini-2.5-flash",
        "mistral/mistral-large-latest",
        "anthropic/claude-sonnet-4-5",
    ]
    mistral = out.split("== mistral/")[1].split("== anthropic/")[0]
    assert "quirk 30" in mistral  # OpenAI and Gemini ids would break Mistral
    assert "tool-call id(s) rewritten (results alike)" in mistral
    anthropic = out.split("== anthropic/")[1]
    assert "signed by gemini" in anthropic  # Gemini's signed reasoning would break Anthropic
    assert out.count("check() finds nothing left to fix") == 4
    assert "assistant: Lima: overcast, 19 °C. Tokyo is the warmest at 22 °C." in out
    assert "signed reasoning kept in history from: ['anthropic', 'gemini']" in out


@SUBPROCESS
def test_prompt_caching_moves_the_marks_forward_within_four():
    out = run_example("prompt_caching.py", "--turns", "6")
    turns = [line for line in out.splitlines() if line.startswith("turn ")]
    assert len(turns) == 6
    marks = [eval(line.split("marks on messages ")[1].split(";")[0]) for line in turns]
    assert all(len(m) <= 4 and m[0] == 0 for m in marks)  # the system prompt, always
    assert [m[-1] for m in marks] == [1, 3, 5, 7, 9, 11]  # the last message, turn after turn
    assert "the 2 oldest are removed" in out
    assert "sent with marks on: ['Question 1', 'Question 2', 'Question 3', 'Question 4']" in out


@SUBPROCESS
def test_autogen_agent_keeps_whole_exchanges_and_gemini_gets_a_user_turn_first():
    out = run_example("autogen_agent.py")
    lines = out.splitlines()
    assert [line for line in lines if line.startswith("user: ")] == [
        "user: Weather in Paris?",
        "user: And in Tokyo?",
        "user: What about Atlantis?",
        "user: Finally, Oslo?",
    ]
    assert "  tool: ''" in lines  # the unknown city's empty result
    windows = [line for line in lines if line.startswith("  [window: ")]
    assert len(windows) == 4
    assert windows[0] == "  [window: 4 of 4 messages, whole exchanges; profile fixes: nothing]"
    assert all("profile fixes: ['quirk 24']" in line for line in windows[1:])  # the window opens on an answer
    assert "state loaded into AutoGen's own context: 16 messages" in out
    assert '"provider": "messages.integrations.autogen.BufferedChatCompletionContext"' in out
    assert lines[-1] == "8 requests to the stand-in Gemini, each opening on a turn of role ['user']"


@SUBPROCESS
def test_agent_framework_agent_keeps_its_history_in_sqlite_and_sends_only_the_window():
    pytest.importorskip("agent_framework")
    out = run_example("agent_framework_agent.py")
    lines = out.splitlines()
    assert [line for line in lines if line.startswith("user: ")] == [
        "user: Weather in Paris?",
        "user: And in Tokyo?",
        "user: Finally, Oslo?",
        "user: How much do you remember?",
    ]
    assert "  assistant: The weather service says: snow, -3 °C." in lines
    stored = [line for line in lines if line.startswith("  [stored: ")]
    # Every turn stored whole; a request holds the instructions and at most the 4-message window besides the
    # turn in progress.
    assert stored == [
        "  [stored: 4 messages; sent: 4 messages]",
        "  [stored: 8 messages; sent: 8 messages]",
        "  [stored: 12 messages; sent: 8 messages]",
    ]
    # The second process's agent loaded the window of its session: the instructions, 4 messages, the question.
    assert "  assistant: I remember 6 messages of our talk." in lines
    assert "saved the last turn again: 14 -> 14 messages" in lines
    assert lines[-1] == "7 requests to the stand-in OpenAI, at most 8 messages each"


@SUBPROCESS
def test_openai_agents_session_keeps_the_session_in_sqlite_and_resumes_an_approval_in_a_second_process():
    pytest.importorskip("agents")
    out = run_example("openai_agents_session.py")
    lines = out.splitlines()
    assert lines[:5] == [
        "user: Weather in Paris and Rome?",
        "  assistant: Done: light rain, 14 °C; sunny, 24 °C.",
        "user: Please delete notes.txt",
        '  waiting for approval: delete_file({"path":"notes.txt"})',
        "  [approved in a second process] assistant: Done: deleted notes.txt.",
    ]
    # One stored message per item: the user's two questions, the first answer's text and two parallel calls,
    # their results, the answer; the call that waited, its result, the answer.
    assert "the session holds 11 items, stored as 11 messages" in lines
    # The newest 2 are a result and the answer: the read reaches back to the call the result answers.
    assert "get_items(limit=2) gives 3 items: function_call, function_call_output, message" in lines
    assert lines[-1] == "4 requests to the stand-in OpenAI"
