"""``messages check`` run as a user runs it: a subprocess on conversation files in a temporary folder.

The named cases are the failures users meet (each cites its quirk); the subprocesses use
provider-prefixed model names, so that none of them imports litellm (a bare name would, to find the
provider, and that import costs seconds). Properties and the finer points of reading run in-process, on
the same code paths (``messages.cli.main``, ``messages._check``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import load_messages, protocol_errors, repair_conversation
from messages import strategies as ms
from messages._check import Changes, Entry, InputError, Target, check_entry, compare, fix_entry, read_entries
from messages.cli import main, render_json, render_text
from messages.profiles import get_profile, registered_profiles
from messages.protocol import MISSING_RESULT
from tests.oracles import openai_accepts

SCRIPT = Path(sys.executable).parent / ("messages.exe" if os.name == "nt" else "messages")

# A Gemini tool-call id as litellm hands it back: the call id, then the thought signature (quirk 25).
SIGNED_ID = "call_9f2c__thought__CiQBVKhc9x0aGVsbG8gd29ybGQgc2lnbmF0dXJlIGJ5dGVz"
# One whose call id alone is longer than OpenAI's 40 characters (quirk 3).
LONG_SIGNED_ID = "function-call-3b0e5a7c9d1f2468ace013579bdf2468__thought__c2lnbmF0dXJl"


def call(call_id: str, name: str = "get_weather", arguments: str = '{"city":"Paris"}') -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def user(text: str, **extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": text, **extra}


def assistant(text: str | None = None, *calls: dict[str, Any], **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text, **extra}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def tool(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def exchange(call_id: str) -> list[dict[str, Any]]:
    return [user("Weather in Paris?"), assistant(None, call(call_id)), tool(call_id, "18C, sunny")]


SONNET_45, OPUS_46 = "anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-6"
MISTRAL, OPENAI, GEMINI = "mistral/mistral-large-latest", "openai/gpt-4o", "gemini/gemini-2.5-flash"

# name -> (messages, models, {(section, index, rule, row)}, words the reason must contain)
CASES: dict[str, tuple[list[dict[str, Any]], list[str], set[tuple[str, int, str, int]], list[str]]] = {
    # A LangChain-style trim kept the tool result and dropped the call it answers (quirk 2).
    "orphan result after a trim": (
        [
            {"role": "system", "content": "You are a weather bot."},
            tool("call_trimmed", "18C"),
            user("And tomorrow?"),
            assistant("Probably rain."),
        ],
        [],
        {("protocol", 1, "orphan-tool-result", 2)},
        ["'call_trimmed'", "not after an assistant message with tool_calls"],
    ),
    # Two parallel calls, one answered (quirk 1).
    "unanswered call": (
        [
            user("Weather and time in Paris?"),
            assistant(None, call("call_weather"), call("call_time", "get_time", "{}")),
            tool("call_weather", "18C"),
            user("Thanks"),
        ],
        [],
        {("protocol", 1, "unanswered-tool-call", 1)},
        ["'call_time'", "no tool result answers it"],
    ),
    # One id minted twice in one turn (a server numbering every call call_0): its results cannot say which
    # call they answer. (An id used again in a later turn is valid: ids are scoped to their turn.)
    "duplicate id": (
        [
            user("Weather in Paris and Rome?"),
            assistant(None, call("call_0"), call("call_0", arguments='{"city":"Rome"}')),
            tool("call_0", "18C, sunny"),
            tool("call_0", "25C, sunny"),
        ],
        [],
        {("protocol", 1, "duplicate-tool-call-id", 17), ("protocol", 3, "duplicate-tool-result", 16)},
        ["'call_0'", "earlier in the same message"],
    ),
    # A failed tool call flagged is_error, which no route carries (quirk 71): said in the content instead.
    "failed tool result": (
        [*exchange("call_1")[:2], {**tool("call_1", "no gauge on the Thames"), "is_error": True}],
        [SONNET_45, OPENAI],
        {(SONNET_45, 2, "tool-error-flag", 71), (OPENAI, 2, "tool-error-flag", 71)},
        ["litellm drops a tool result's is_error on its way to anthropic", "said in the content"],
    ),
    # A Gemini-signed id continued on Mistral: 9 letters or digits only (quirk 30), on call and result.
    "signed id to Mistral": (
        [*exchange(SIGNED_ID), assistant("18C and sunny."), user("Thanks")],
        [MISTRAL],
        {(MISTRAL, 1, "tool-call-id", 30), (MISTRAL, 2, "tool-call-id", 30)},
        ["litellm sends it as 'call_9f2c'", "exactly 9 characters"],
    ),
    # The same on OpenAI: litellm cuts the signature, and the id left is over 40 characters (quirk 3).
    "signed id to OpenAI": (
        [*exchange(LONG_SIGNED_ID), assistant("18C and sunny."), user("Thanks")],
        [OPENAI],
        {(OPENAI, 1, "tool-call-id", 3), (OPENAI, 2, "tool-call-id", 3)},
        ["'function-call-3b0e5a7c9d1f2468ace013579bdf2468'", "at most 40 characters"],
    ),
    # Gemini rejects an empty text part (quirk 23).
    "empty text to Gemini": (
        [{"role": "system", "content": "Be brief."}, user(""), assistant("Hello?"), user("Hi")],
        [GEMINI],
        {(GEMINI, 1, "empty-text", 23)},
        ["empty text"],
    ),
    # Mistral answers 422 extra_forbidden to `name` on a user message (quirk 33).
    "name for Mistral": (
        [user("Hi", name="alice"), assistant("Hello Alice."), user("Weather?")],
        [MISTRAL],
        {(MISTRAL, 0, "name", 33)},
        ["mistral rejects `name` on a user message"],
    ),
    # Claude thinking blocks signed on Bedrock, sent to Anthropic's API (quirk 18).
    "reasoning of another provider": (
        [
            user("Capital of France?"),
            assistant(
                "Paris.",
                thinking_blocks=[{"type": "thinking", "thinking": "Easy.", "signature": "c2lnbmVk"}],
                provider="bedrock",
            ),
            user("And of Italy?"),
        ],
        [SONNET_45],
        {(SONNET_45, 1, "foreign-reasoning", 18)},
        ["signed by bedrock", "rejects another provider's signatures"],
    ),
    # Claude 4.6 and later refuse assistant prefill (quirk 15); Claude 4.5 takes it.
    "prefill for Claude 4.6": (
        [user("Write a haiku about rain."), assistant("Soft rain on the roof")],
        [OPUS_46, SONNET_45],
        {(OPUS_46, 1, "prefill", 15)},
        ["does not support assistant prefill"],
    ),
}

VALID = [  # valid for every provider: its tool-call id is even one Mistral takes
    {"role": "system", "content": "You are a weather bot."},
    user("Weather in Paris?"),
    assistant(None, call("a1B2c3D4e")),
    tool("a1B2c3D4e", "18C, sunny"),
    assistant("18C and sunny in Paris."),
    user("Thanks!"),
]


# --- running the command -----------------------------------------------------------------------------


def run(
    *args: str, cwd: Path, stdin: str | None = None, script: bool = False
) -> subprocess.CompletedProcess[str]:
    command = [str(SCRIPT)] if script else [sys.executable, "-m", "messages"]
    return subprocess.run(
        [*command, "check", *args], capture_output=True, text=True, cwd=cwd, input=stdin, timeout=120
    )


def write(folder: Path, name: str, data: Any) -> Path:
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


_HEADER = re.compile(r"^  (.+): \d+ problems? with litellm alone$")
_PROBLEM = re.compile(
    r"^    (?:message (\d+)|the conversation): (.+) \[([a-z-]+)(?:, quirk (\d+))?"
    r"(?:, (fixable|not fixable))?\]$"
)
_LINE = re.compile(r"^\S.* line (\d+): ")


def text_problems(out: str) -> set[tuple[int | None, str, int | None, str, int | None, bool | None]]:
    """(line, section, index, rule, row, fixable) of every problem line of a text report."""
    found = set()
    sections: list[str] = []
    line: int | None = None
    for text in out.splitlines():
        if (numbered := _LINE.match(text)) is not None:
            line = int(numbered.group(1))
        if text.startswith("  tool-call protocol"):
            sections = ["protocol"]
        elif text.startswith("  messages that cannot be read"):
            sections = ["shape"]
        elif (header := _HEADER.match(text)) is not None:
            head = re.sub(r" (\(profile [^)]*\)|\[no profile[^\]]*\])", "", header.group(1))
            assert " more with the same report" not in head, (
                "the test's reports stay below the grouping limit"
            )
            sections = head.split(", ")
        elif (problem := _PROBLEM.match(text)) is not None:
            index, _, rule, row, fixable = problem.groups()
            for section in sections:
                found.add(
                    (
                        line,
                        section,
                        None if index is None else int(index),
                        rule,
                        None if row is None else int(row),
                        None if fixable is None else fixable == "fixable",
                    )
                )
    return found


def json_problems(
    document: dict[str, Any],
) -> set[tuple[int | None, str, int | None, str, int | None, bool | None]]:
    return {
        (
            p["line"],
            p["model"] or p["provider"] if p["kind"] == "provider" else p["kind"],
            p["index"],
            p["rule"],
            p["row"],
            None if p["kind"] == "shape" else p["fixable"],
        )
        for p in document["problems"]
    }


# --- named cases -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(CASES))
def test_each_problem_is_reported_at_its_index_with_its_row(tmp_path, name):
    messages, models, expected, words = CASES[name]
    path = write(tmp_path, "conversation.json", messages)
    result = run(*(arg for model in models for arg in ("--model", model)), path.name, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    reported = {
        (section, index, rule, row) for _, section, index, rule, row, _ in text_problems(result.stdout)
    }
    assert reported == expected, result.stdout
    for word in words:
        assert word in result.stdout, result.stdout
    assert result.stdout.splitlines()[-1].startswith(f"conversation.json: {len(expected)} problem")


def test_a_valid_conversation_reports_nothing_and_exits_0(tmp_path):
    # The installed `messages` command, as pyproject.toml declares it.
    path = write(tmp_path, "good.json", VALID)
    result = run(
        "--model", OPENAI, "--model", MISTRAL, "--model", OPUS_46, path.name, cwd=tmp_path, script=True
    )
    assert (result.returncode, result.stderr) == (0, "")
    (line,) = result.stdout.splitlines()
    assert line.startswith("good.json: 6 messages, no problems")
    assert OPENAI in line


def test_every_provider_at_once(tmp_path):
    path = write(tmp_path, "signed.json", CASES["signed id to Mistral"][0])
    result = run("--all-providers", "--format", "json", path.name, cwd=tmp_path)
    assert result.returncode == 1
    document = json.loads(result.stdout)
    profiles = {p["provider"] for p in document["conversations"][0]["profiles"]}
    assert profiles == {p.name for p in registered_profiles()}
    by_provider = {
        (p["provider"], p["index"], p["row"]) for p in document["problems"] if p["rule"] == "tool-call-id"
    }
    # Mistral ids wherever a Mistral model is served (quirk 30, quirk 45 for Bedrock), Gemini keeps its own.
    assert {("mistral", 1, 30), ("mistral", 2, 30), ("bedrock:mistral", 1, 45)} <= by_provider
    assert not any(provider.startswith("gemini") for provider, _, _ in by_provider)
    # Everything is fixable, but on the route that keeps the last message alone (Cohere v1, quirk 87).
    unfixable = {(p["provider"], p["rule"]) for p in document["problems"] if not p["fixable"]}
    assert unfixable == {("cohere:v1", "history-dropped")}
    assert document["ok"] is False


# --- input that cannot be read -------------------------------------------------------------------------

CONVERSATION_TEXT = json.dumps(VALID, indent=2)
# Cut off inside the fifth message (a log still being written): the last line ends mid-string.
TRUNCATED = CONVERSATION_TEXT[: CONVERSATION_TEXT.index("18C and sunny") + 3]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("hello there\n", "in.json:1:1: not valid JSON: Expecting value"),
        # A comma missing between two messages: line 3, column 3.
        (
            '[\n  {"role": "user", "content": "hi"}\n  {"role": "assistant", "content": "yo"}\n]\n',
            "in.json:3:3: not valid JSON: Expecting ',' delimiter",
        ),
        (
            TRUNCATED,
            f"in.json:{len(TRUNCATED.splitlines())}:{len(TRUNCATED.splitlines()[-1]) + 1}: truncated JSON",
        ),
        ('{"prompt": "hi", "max_tokens": 5}', 'in.json: a JSON object without a "messages" key'),
        (None, "in.json: cannot read the file: No such file or directory"),
    ],
    ids=["not JSON", "syntax error", "truncated", "neither list nor log", "missing file"],
)
def test_unreadable_input_exits_2_with_one_line_naming_file_and_position(tmp_path, content, expected):
    path = tmp_path / "in.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result = run(path.name, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"messages check: {expected}")


DEEP = "[" * 100_000 + "]" * 100_000  # json.loads gives up near 1000 levels (RecursionError)


def assert_one_line_exit_2(result: subprocess.CompletedProcess[str], expected: str) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert (result.returncode, result.stdout) == (2, "")
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"messages check: {expected}"), line


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda path: path.mkdir(), "in.json: cannot read the file: Is a directory"),
        (lambda path: path.write_bytes(b""), "in.json: empty input"),
        (
            lambda path: path.write_text(DEEP),
            "in.json:1:100000: nested too deeply: [ and { nest 100000 levels",
        ),
        # Pretty-printed: the deepest point is on a line of its own.
        (
            lambda path: path.write_text(
                '[\n {"role": "user",\n  "content": ' + DEEP[:3000] + "]" * 1500 + "}]"
            ),
            "in.json:3:3013: nested too deeply: [ and { nest 3002 levels",
        ),
        # JSON Lines: the second line is the deep one.
        (
            lambda path: path.write_text(json.dumps(VALID) + "\n" + DEEP + "\n"),
            "in.json:2:100000: nested too deeply",
        ),
        # Byte 10 is a newline: 0x80 is on line 2.
        (lambda path: path.write_bytes(bytes(range(256))), "in.json:2:118: not UTF-8 text (byte 0x80)"),
    ],
    ids=["a directory", "an empty file", "deep nesting", "deep nesting, pretty", "deep JSON Lines", "binary"],
)
def test_more_unreadable_input_exits_2_with_one_line(tmp_path, make, expected):
    make(tmp_path / "in.json")
    assert_one_line_exit_2(run("in.json", cwd=tmp_path), expected)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (bytes(range(256)) * 4, "<stdin>:2:118: not UTF-8 text (byte 0x80)"),
        (DEEP.encode(), "<stdin>:1:100000: nested too deeply"),
        (b"", "<stdin>: empty input"),
    ],
    ids=["binary", "deep nesting", "nothing"],
)
def test_unreadable_standard_input_exits_2_with_one_line(tmp_path, data, expected):
    command = [sys.executable, "-m", "messages", "check", "-"]
    done = subprocess.run(command, input=data, capture_output=True, cwd=tmp_path, timeout=120)
    result = subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode("utf-8", "replace")
    )
    assert_one_line_exit_2(result, expected)


def nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("flags", [[], ["--model", GEMINI], ["--fix", "--model", MISTRAL]])
def test_a_message_nested_deep_inside_never_shows_a_traceback(tmp_path, flags):
    # Deep enough to read, and (before models/_wire.copy_json stopped recursing) deep enough to overflow
    # the stack in the dump: either way the user gets a report, or one line saying it is a bug.
    conversation = [user("hi"), assistant("x", provider_specific_fields=nested(700))]
    path = write(tmp_path, "deep.json", json.dumps(conversation))
    result = run(*flags, path.name, cwd=tmp_path)
    assert "Traceback" not in result.stderr
    if result.returncode == 2:
        (line,) = result.stderr.splitlines()
        assert line.startswith("messages check: deep.json: ")
        assert "this is a bug in messages" in line
    else:
        assert result.returncode in (0, 1), result.stderr


def test_an_unexpected_error_is_one_line_that_says_it_is_a_bug(tmp_path, monkeypatch, capsys):
    import messages.cli

    def broken(entry: Entry, targets: Any) -> Any:
        raise KeyError("tool_calls")

    path = write(tmp_path, "good.json", VALID)
    monkeypatch.setattr(messages.cli, "check_entry", broken)
    monkeypatch.delenv("MESSAGES_TRACEBACK", raising=False)
    assert main(["check", str(path)]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert line.startswith(f"messages check: {path}: the check failed: KeyError: 'tool_calls'; this is a bug")
    assert "MESSAGES_TRACEBACK=1" in line
    assert captured.out == ""
    monkeypatch.setenv("MESSAGES_TRACEBACK", "1")
    with pytest.raises(KeyError):
        main(["check", str(path)])


# --- text that cannot be sent: lone surrogates -------------------------------------------------------------

# "\ud800" escaped in JSON reads as half a character: json.loads takes it, UTF-8 cannot encode it.
SURROGATES = (
    '[{"role": "user", "content": "a\\ud800b"},'
    ' {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",'
    ' "function": {"name": "f", "arguments": "{\\"q\\": \\"\\udc00\\"}"}}]},'
    ' {"role": "tool", "tool_call_id": "c1", "content": "ok \\ud83d\\ude00"}]'
)


def test_a_lone_surrogate_is_a_problem_at_its_message_and_field(tmp_path):
    path = write(tmp_path, "s.json", SURROGATES)
    result = run("--format", "json", path.name, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "")
    problems = json.loads(result.stdout)["problems"]
    assert [(p["index"], p["field"], p["rule"], p["fixable"]) for p in problems] == [
        (0, "content", "lone-surrogate", False),
        (1, "tool_calls[0].function.arguments", "lone-surrogate", False),
    ]  # the escaped pair in message 2 is one whole character (an emoji): not a problem
    assert "U+D800" in problems[0]["message"]
    assert "cannot be encoded as UTF-8" in problems[0]["message"]
    text = run(path.name, cwd=tmp_path)
    assert text.returncode == 1
    assert "message 0: user message: content holds a lone surrogate (U+D800)" in text.stdout


def test_fix_does_not_crash_on_a_lone_surrogate_and_says_it_cannot_fix_it(tmp_path):
    path = write(tmp_path, "s.json", '[{"role":"user","content":"a\\ud800b"}]')
    result = run("--fix", "--model", MISTRAL, path.name, cwd=tmp_path)
    assert "Traceback" not in result.stderr
    assert (result.returncode, result.stdout) == (1, "")
    assert "--fix wrote nothing for this conversation: it holds text that cannot be encoded" in result.stderr


def test_a_report_quoting_a_lone_surrogate_prints_it_escaped(tmp_path):
    # The shape problem quotes the bad value, surrogate and all; the report must still print.
    path = write(tmp_path, "s.json", '[{"role":"user","content":"hi","name":["\\ud800"]}]')
    result = run(path.name, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "")
    assert 'name: Input should be a valid string (got ["\\ud800"])' in result.stdout
    # In JSON the escape is the JSON escape: the report reads back to the very value.
    result = run("--format", "json", path.name, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "")
    assert '(got ["\ud800"])' in json.loads(result.stdout)["problems"][0]["message"]


# --- a message that cannot be read does not hide the others ------------------------------------------------


def test_problems_beside_an_unreadable_message_are_still_reported_at_their_indexes(tmp_path):
    mixed = [
        user("hi"),
        {"role": "wizard", "content": "x"},  # cannot be read
        assistant(None, call("c1", "f", "{}")),
        tool("c2", "r"),  # answers no call of message 2; c1 is unanswered
        user("next"),
        assistant(None, call("c3", "f", "{}"), call("c3", "f", '{"x": 1}')),  # c3 twice in one turn
        tool("c3", "r"),
        assistant(""),  # Gemini rejects an empty text (quirk 23)
    ]
    path = write(tmp_path, "mix.json", mixed)
    result = run("--model", GEMINI, path.name, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "")
    lines = [(section, index, rule) for _, section, index, rule, _, _ in text_problems(result.stdout)]
    assert sorted(lines, key=str) == sorted(
        [
            ("shape", 1, "unknown-role"),
            ("protocol", 2, "unanswered-tool-call"),
            ("protocol", 3, "orphan-tool-result"),
            ("protocol", 5, "duplicate-tool-call-id"),
            (GEMINI, 7, "empty-text"),
        ],
        key=str,
    )
    # The reasons name the messages at their own indexes, and the lines come in index order.
    assert "(message 2) made no call with that id" in result.stdout
    assert "already used by tool_calls[0] earlier in the same message" in result.stdout
    protocol = [line for line in result.stdout.splitlines() if "[unanswered" in line or "[orphan" in line]
    protocol += [line for line in result.stdout.splitlines() if "[duplicate" in line]
    assert [line.split(":")[0].strip() for line in protocol] == ["message 2", "message 3", "message 5"]
    assert (
        "message 1 cannot be read: the tool-call protocol and the provider rules that judge one message"
        in (result.stdout)
    )
    assert "the profile was not applied: message 1 cannot be read" in result.stdout


def test_an_unreadable_message_that_answers_or_makes_a_call_hides_no_false_problem():
    conversation = [
        user("hi"),
        assistant(None, call("c1"), call("c2")),
        tool("c1", 42),  # type: ignore[arg-type]  # cannot be read, but it answers c1
        tool("c2", "r"),
        assistant(None, {"id": "c3", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}),
        tool("c3", "r"),  # its call cannot be read: not an orphan as far as this check can tell
        user("and?"),
        assistant(None, call("c4")),  # really unanswered
        user("hello?"),
    ]
    report = check_entry(Entry("f", None, conversation), [])
    found = [(p.kind, p.index, p.rule) for p in report.problems]
    assert found == [
        ("shape", 2, "invalid-field"),
        ("shape", 4, "arguments-not-string"),
        ("protocol", 7, "unanswered-tool-call"),
    ]
    assert (
        report.skipped
        == "messages 2, 4 cannot be read: the tool-call protocol was checked on the other messages"
    )


def test_bad_flags_are_usage_errors(tmp_path):
    path = write(tmp_path, "good.json", VALID)
    result = run("--fix", "--model", OPENAI, "--model", MISTRAL, path.name, cwd=tmp_path)
    assert result.returncode == 2
    assert "give one --model, not 2" in result.stderr
    assert result.stderr.startswith("usage: messages check")
    assert "Traceback" not in result.stderr


# --- a batch: JSON Lines of request logs, --fix, --format json -------------------------------------------


def batch_logs() -> list[dict[str, Any]]:
    """Every named case as a request log (the protocol cases sent to OpenAI), with keys of its own."""
    logs = []
    for number, (messages, models, _, _) in enumerate(CASES.values()):
        logs.append(
            {"custom_id": f"req-{number}", "model": models[0] if models else OPENAI, "messages": messages}
        )
    logs.append({"custom_id": "req-valid", "model": MISTRAL, "messages": VALID, "temperature": 0.2})
    return logs


def test_fix_writes_payloads_that_pass_check_and_validate(tmp_path):
    logs = batch_logs()
    path = write(tmp_path, "requests.jsonl", "\n".join(json.dumps(log) for log in logs) + "\n")
    fixed = run("--fix", path.name, cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    out = [json.loads(line) for line in fixed.stdout.splitlines()]
    assert len(out) == len(logs)
    for log, result in zip(logs, out, strict=True):
        assert {k: v for k, v in result.items() if k != "messages"} == {
            k: v for k, v in log.items() if k != "messages"
        }
        messages = result["messages"]
        assert get_profile(log["model"]).check(messages) == [], log["custom_id"]
        typed = load_messages([{k: v for k, v in m.items() if k != "prefix"} for m in messages])
        assert protocol_errors(typed) == []
        if log["model"] == OPENAI:
            openai_accepts(messages)
    # What the user sees on stderr: the report, then what --fix did, per line.
    assert "requests.jsonl line 1: --fix merges 1 message into a neighbour\n" in fixed.stderr  # the orphan
    assert "requests.jsonl line 2: --fix adds 1 message\n" in fixed.stderr  # the missing result
    assert "the output passes check for mistral/mistral-large-latest" in fixed.stderr
    # The repaired call got the synthesized result, and the orphan is gone.
    assert out[1]["messages"][3] == tool("call_time", MISSING_RESULT)
    assert [m["role"] for m in out[0]["messages"]] == ["system", "user", "assistant"]

    again = write(tmp_path, "fixed.jsonl", fixed.stdout)
    checked = run(again.name, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout
    assert checked.stdout.splitlines()[-1] == f"fixed.jsonl: 0 problems in 0 of {len(logs)} conversations"


def test_json_report_matches_the_text_report(tmp_path):
    logs = batch_logs()
    text = "\n".join(json.dumps(log) for log in logs) + "\n"
    path = write(tmp_path, "requests.jsonl", text)
    as_text = run(path.name, cwd=tmp_path)
    as_json = run("--format", "json", "-", cwd=tmp_path, stdin=text)
    assert as_text.returncode == as_json.returncode == 1
    document = json.loads(as_json.stdout)
    assert document["version"] == 1
    assert document["file"] == "<stdin>"
    assert json_problems(document) == text_problems(as_text.stdout)
    # Every named case shows up, on its own line of the file (each log names its first model only).
    for number, (_, models, expected, _) in enumerate(CASES.values(), start=1):
        found = {(p["index"], p["rule"], p["row"]) for p in document["problems"] if p["line"] == number}
        wanted = {
            (i, rule, row) for section, i, rule, row in expected if section in ("protocol", *models[:1])
        }
        assert wanted <= found
    assert document["summary"]["conversations"] == len(logs)
    assert document["summary"]["conversations_with_problems"] == len(logs) - 1


def test_only_orphan_results_are_not_called_fixable(tmp_path):
    # A log cut so hard that only tool results are left (quirks 2 and 12): repair drops
    # them all, so --fix must not promise a fix, and writes nothing rather than an empty request.
    path = write(tmp_path, "cut.json", [tool("call_1", "18C, sunny"), tool("call_2", "rain")])
    result = run("--fix", path.name, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert "none fixable by --fix" in result.stderr
    assert "[empty-conversation, quirk 12, not fixable]" in result.stderr
    assert "cut.json: --fix wrote nothing for this conversation" in result.stderr


def test_a_model_litellm_does_not_know_gets_the_default_profile_and_clean_json(tmp_path, capfd):
    # litellm prints a "Provider List" banner to stdout for a model it cannot place; it must not reach
    # the report, or `--format json` is no longer JSON.
    path = write(tmp_path, "c.json", VALID)
    result = run("--model", "my-local-llama", "--format", "json", path.name, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "")  # the default wants "" beside calls (quirk 53)
    document = json.loads(result.stdout)
    assert {(p["index"], p["row"]) for p in document["problems"]} == {(2, 53)}
    ((conversation,),) = [c["profiles"] for c in document["conversations"]]
    assert (conversation["model"], conversation["is_default"]) == ("my-local-llama", True)
    # The text report, in this process (litellm is imported once per session), captured at the descriptors.
    assert main(["check", "--model", "my-local-llama", str(path)]) == 1
    text = capfd.readouterr()
    assert "my-local-llama" in text.out
    assert "Provider List" not in text.out + text.err


def test_a_plain_check_does_not_import_litellm_nor_the_profiles(tmp_path):
    # `-X importtime` lists every module the process imported, on stderr.
    path = write(tmp_path, "orphan.json", CASES["orphan result after a trim"][0])

    def imported(*args: str) -> set[str]:
        result = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "messages", "check", *args, path.name],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
        )
        assert result.returncode == 1
        return {
            line.rsplit("|", 1)[1].strip()
            for line in result.stderr.splitlines()
            if line.startswith("import time:")
        }

    plain = imported()
    assert "messages.cli" in plain
    assert not {m for m in plain if m.split(".")[0] == "litellm" or m.startswith("messages.profiles")}
    # Prefixed model names resolve without litellm too: only a bare name ("gpt-4o") asks it.
    with_profiles = imported("--model", MISTRAL, "--model", OPUS_46)
    assert "messages.profiles.mistral" in with_profiles
    assert not {m for m in with_profiles if m.split(".")[0] == "litellm"}


# --- in-process: reading -------------------------------------------------------------------------------


def test_json_lines_errors_name_the_line_of_the_file():
    data = b'[{"role": "user", "content": "hi"}]\n\n{"model": "m", "messages": [}\n'
    with pytest.raises(InputError, match=r"^f\.jsonl:3:29: not valid JSON"):
        read_entries("f.jsonl", data)
    # A truncated last line, as when a logger is killed mid-write.
    with pytest.raises(InputError, match=r"^f\.jsonl:2:\d+: truncated JSON"):
        read_entries("f.jsonl", b'{"messages": []}\n{"messages": [{"role": "us')


def test_two_pretty_printed_objects_are_not_json_lines():
    data = b'{\n  "messages": []\n}\n{\n  "messages": []\n}\n'
    with pytest.raises(InputError, match=r"^f:4:1: not valid JSON: Extra data"):
        read_entries("f", data)


def test_reading_accepts_a_bom_and_names_bad_bytes():
    (entry,) = read_entries("f", '\ufeff[{"role": "user", "content": "hi"}]'.encode())
    assert entry.messages == [user("hi")]
    with pytest.raises(InputError, match=r"^f:2:15: not UTF-8 text \(byte 0xff\)"):
        read_entries("f", b'[\n {"content": "\xff"}]')


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('"hi"', "a JSON string at the top level"),
        ("3", "a JSON number at the top level"),
        ('{"role": "user", "content": "hi"}', "a single message, not a list of them"),
        ('{"model": "m", "messages": {"role": "user"}}', '"messages" is a JSON object, not a list'),
        ('{"model": 5, "messages": []}', '"model" is 5, not a model name'),
        ("  \n", "empty input"),
    ],
)
def test_json_that_is_not_a_conversation_says_what_it_is(value, expected):
    with pytest.raises(InputError, match=re.escape(expected)):
        read_entries("f", value.encode())


def test_a_batch_api_line_keeps_its_envelope():
    line = {
        "custom_id": "a",
        "method": "POST",
        "body": {"model": MISTRAL, "messages": [user("hi", name="bo")]},
    }
    (entry,) = read_entries("f", json.dumps(line).encode())
    assert entry.model == MISTRAL
    fixed = fix_entry(entry, Target(get_profile(MISTRAL), MISTRAL))
    assert fixed is not None
    assert fixed.payload == {**line, "body": {"model": MISTRAL, "messages": [user("hi")]}}


def test_an_openrouter_payload_fixed_with_its_reasoning_details_reads_back_clean():
    # Quirk 56: the OpenRouter profile moves a reply's reasoning details out of provider_specific_fields
    # into the assistant turn's own `reasoning_details`, a key the message classes have no field for; the
    # check reads it apart (as Mistral's `prefix`), so the payload it wrote checks clean, and a route that
    # takes no such key still hears of it.
    details = [{"type": "reasoning.encrypted", "data": "opaque", "id": "r1", "format": "anthropic-claude-v1"}]
    turn = assistant(None, call("c1", "get_time"))
    messages = [
        user("what time is it?"),
        {**turn, "provider_specific_fields": {"reasoning_details": details}},
        tool("c1", "noon"),
    ]
    model = "openrouter/anthropic/claude-sonnet-4"
    target = Target(get_profile(model), model)
    fixed = fix_entry(Entry("f", None, messages), target)
    assert fixed is not None
    written = fixed.payload
    assert written[1]["reasoning_details"] == details
    assert "provider_specific_fields" not in written[1]
    again = check_entry(Entry("fixed", None, written), [target])
    assert again.all_problems() == []
    (report,) = again.profiles
    assert report.changes == Changes()  # nothing left for the profile to change
    elsewhere = check_entry(Entry("fixed", None, written), [Target(get_profile(OPENAI), OPENAI)])
    assert [(p.index, p.rule) for p in elsewhere.all_problems()] == [(1, "unknown-key")]


# --- in-process: shape problems -------------------------------------------------------------------------


def test_shape_problems_name_the_message_and_the_field_in_plain_words():
    broken = [
        user(5),  # type: ignore[arg-type]
        {"role": "bogus", "content": "x"},
        {"role": "tool", "content": "r"},
        user([{"type": "text", "text": "x", "citations": {"enabled": True}}]),  # type: ignore[arg-type]
        assistant(None, {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}),
        "hello",
    ]
    report = check_entry(Entry("f", None, broken), [Target(get_profile(OPENAI), OPENAI)])
    lines = [(p.index, p.rule, p.field, p.message) for p in report.problems]
    assert lines == [
        (
            0,
            "invalid-field",
            "content",
            "user message: content must be a string or a list of content parts, not 5",
        ),
        (
            1,
            "unknown-role",
            None,
            "unknown role 'bogus' (the roles are 'system', 'developer', 'user', 'assistant', 'tool')",
        ),
        (2, "missing-field", "tool_call_id", "tool message: required field 'tool_call_id' is missing"),
        (
            3,
            "unknown-field",
            "content[0].citations",
            "user message: unknown key 'citations' in content[0] (no message field has that name)",
        ),
        (
            4,
            "arguments-not-string",
            "tool_calls[0].function.arguments",
            "assistant message: tool_calls[0].function.arguments must be a JSON string, not a JSON object "
            "(json.dumps it)",
        ),
        (5, "not-an-object", None, "a JSON string, not a message object"),
    ]
    assert report.problems[4].row == 6
    assert report.profiles == []
    assert report.skipped is not None
    assert fix_entry(Entry("f", None, broken), None) is None


# --- in-process: what a profile changes --------------------------------------------------------------


def test_compare_counts_what_the_mistral_profile_does():
    # One signed id (on a call and its result), one name, one user turn right after a tool result.
    messages = [user("Hi", name="alice"), *exchange(SIGNED_ID)[1:], user("Thanks")]
    after = get_profile(MISTRAL).apply(messages)
    changes = compare(messages, after)
    assert (changes.ids_rewritten, changes.keys_dropped, changes.messages_added) == (1, {"name": 1}, 1)
    ((old, new),) = changes.id_examples
    assert old == SIGNED_ID
    assert re.fullmatch(r"[a-zA-Z0-9]{9}", new)
    assert (changes.messages_dropped, changes.messages_merged, changes.roles_changed) == (0, 0, 0)
    assert changes.contents_changed == changes.arguments_changed == changes.tool_calls_removed == 0
    assert compare(messages, messages).describe() == "changes nothing"


def test_compare_tells_merged_turns_from_dropped_blank_ones():
    before = [user("a"), user("b"), user("  "), assistant("c")]
    after = [user("a\n\nb"), assistant("c")]
    changes = compare(before, after)
    assert (changes.messages_merged, changes.messages_dropped, changes.contents_changed) == (1, 1, 1)


def test_compare_tells_a_result_moved_back_to_its_call_under_a_new_id():
    # A late result (after a user turn) that repair puts back after its call, with the id Mistral needs.
    call, result, nudge = exchange(SIGNED_ID)[1], exchange(SIGNED_ID)[2], user("hurry")
    before = [user("Hi"), call, nudge, result]
    after = get_profile(MISTRAL).apply([m.model_dump() for m in repair_conversation(load_messages(before))])
    changes = compare(before, after)
    assert changes.messages_moved == 1
    assert changes.ids_rewritten == 1
    assert (changes.messages_dropped, changes.messages_merged) == (0, 0)
    assert "moves 1 message" in changes.describe()


# --- in-process: properties -----------------------------------------------------------------------------

PROFILES = registered_profiles()


@st.composite
def broken_conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A conversation from ``messages.strategies``, broken the ways real histories break (or not)."""
    messages = [m.model_dump() for m in draw(ms.conversations())]
    how = draw(st.sampled_from(["none", "trim front", "drop a result", "repeat an exchange"]))
    tools = [i for i, m in enumerate(messages) if m["role"] == "tool"]
    if how == "trim front" and len(messages) > 1:
        messages = messages[draw(st.integers(1, len(messages) - 1)) :]
    elif how == "drop a result" and tools:
        del messages[draw(st.sampled_from(tools))]
    elif how == "repeat an exchange":
        calls = [i for i, m in enumerate(messages) if m.get("tool_calls")]
        if calls:
            start = draw(st.sampled_from(calls))
            end = start + 1
            while end < len(messages) and messages[end]["role"] == "tool":
                end += 1
            messages += messages[start:end]
    return messages


@given(broken_conversations(), st.lists(st.sampled_from(PROFILES), min_size=1, max_size=3, unique=True))
def test_text_and_json_reports_agree(messages, profiles):
    entry = Entry("f.json", None, messages)
    report = check_entry(entry, [Target(p) for p in profiles])
    text = "\n".join(render_text(report))
    document = json.loads(render_json("f.json", [report], [None]))
    # The text groups profiles with one report; expand the groups the way the JSON lists them.
    assert json_problems(document) == text_problems(text)
    count = document["summary"]["problems"]
    assert count == len(report.all_problems())
    if count:
        assert text.splitlines()[-1].startswith(f"f.json: {count} problem")
    else:
        assert text.count("\n") == 0
        assert "no problems" in text


@given(broken_conversations(), st.sampled_from(PROFILES))
def test_fix_leaves_only_what_no_profile_can_fix(messages, profile):
    target = Target(profile)
    fixed = fix_entry(Entry("f.json", None, messages), target)
    if all(m["role"] == "tool" for m in messages):  # only results that answer no call: nothing to send
        assert fixed is None
        return
    assert fixed is not None
    again = check_entry(Entry("fixed.json", None, fixed.payload), [target])
    left = [p for p in again.problems if p.kind in ("shape", "protocol")]
    assert left == []
    (result,) = again.profiles
    assert [p for p in result.problems if p.fixable] == []
    assert [v for v in fixed.remaining if v.fixable] == []


def test_main_in_process_reads_stdin_and_returns_the_status(monkeypatch, capsys, tmp_path):
    path = write(tmp_path, "good.json", VALID)
    assert main(["check", str(path)]) == 0
    assert "no problems" in capsys.readouterr().out
    assert main(["check", str(tmp_path / "nope.json")]) == 2
    assert "nope.json: cannot read the file" in capsys.readouterr().err


# --- issue 24: what a provider has no form for is named, and --fix says it remains ------------------------

COHERE_LOG = {
    "model": "cohere/command-r-plus",
    "messages": [
        {"role": "system", "content": "Transcribe and answer."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What does she say?"},
                {"type": "input_audio", "input_audio": {"data": "UklGRiQAAABXQVZF", "format": "wav"}},
            ],
        },
    ],
}


def test_check_names_an_audio_part_cohere_cannot_take(tmp_path):
    path = write(tmp_path, "cohere.json", COHERE_LOG)
    result = run("--format", "json", path.name, cwd=tmp_path)
    assert result.returncode == 1
    problems = json.loads(result.stdout)["problems"]
    assert [(p["index"], p["rule"], p["row"], p["fixable"]) for p in problems] == [
        (1, "unsupported-part", 84, False)
    ]
    assert "part 1 is an audio clip: cohere takes none in a user message" in problems[0]["message"]


def test_fix_says_which_findings_remain_and_why(tmp_path):
    path = write(tmp_path, "cohere.json", COHERE_LOG)
    result = run("--fix", path.name, cwd=tmp_path)
    assert result.returncode == 1
    assert "the output still has 1 problem for cohere/command-r-plus that no profile can fix" in result.stderr
    assert "refuses to send it" in result.stderr
    assert "transcribe it, or use a model that takes audio there [unsupported-part, quirk 84" in result.stderr
    # Nothing was dropped to make it pass: the audio is still in the payload written.
    assert json.loads(result.stdout)["messages"][1]["content"][1]["type"] == "input_audio"


def test_cohere_chat_is_checked_against_the_cohere_rules(tmp_path):
    log = {**COHERE_LOG, "model": "cohere_chat/command-r-plus"}
    path = write(tmp_path, "cohere_chat.json", log)
    result = run("--format", "json", path.name, cwd=tmp_path)
    (profile,) = json.loads(result.stdout)["conversations"][0]["profiles"]
    assert profile["provider"] == "cohere"
