"""The README's 20-line bot runs as written, against a stand-in provider; its guide links every example."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from messages import AIMessage, ToolCall, ToolMessage, load_messages
from messages.testing import StandInServer

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def _first_python_block() -> str:
    match = re.search(r"```python\n(.*?)```", README.read_text(), re.DOTALL)
    assert match, "the README has no python code block"
    return match.group(1)


def adder(body: dict) -> AIMessage:
    """A model that calls `add` for "x + y" and then reports the tool's result."""
    conversation = load_messages(body["messages"])
    last = conversation[-1]
    if isinstance(last, ToolMessage):
        return AIMessage(content=f"The answer is {last.content}.")
    a, b = re.findall(r"\d+", str(last.content))
    return AIMessage(tool_calls=[ToolCall(id="call_add", name="add", arguments={"a": int(a), "b": int(b)})])


@pytest.mark.litellm
def test_readme_bot_runs_as_written(litellm, monkeypatch, capsys):
    code = _first_python_block()
    assert len(code.strip().splitlines()) <= 20  # the README promises a 20-line bot
    with StandInServer(adder) as server:
        # The bot names no api_base: the environment points litellm's OpenAI route at the stand-in.
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_BASE", server.url)
        exec(compile(code, "README.md", "exec"), {})
        bodies = server.bodies()
    assert capsys.readouterr().out.strip() == "The answer is 42."
    assert len(bodies) == 2
    assert bodies[0]["tools"][0]["function"]["name"] == "add"
    assert json.loads(bodies[1]["messages"][2]["tool_calls"][0]["function"]["arguments"]) == {"a": 2, "b": 40}
    assert bodies[1]["messages"][3] == {"role": "tool", "tool_call_id": "call_add", "content": "42"}


def test_the_guide_links_every_example_and_every_link_exists():
    text = README.read_text()
    linked = re.findall(r"\]\((examples/[^)#\s]+)\)", text)
    assert linked, "the README links no example"
    missing = [link for link in linked if not (ROOT / link).is_file()]
    assert missing == [], "the README links examples that do not exist"
    examples = {
        f"examples/{p.name}"
        for p in (ROOT / "examples").iterdir()
        if p.is_file() and not p.name.startswith(".") and p.suffix != ".pyc"
    }
    assert examples - set(linked) == set(), "examples the README does not link"
    # each under "### Examples", with the command that runs it
    section = text.split("### Examples", 1)[1].split("\n## ", 1)[0]
    for link in linked:
        assert f"]({link})" in section
        assert f"python {link}" in section, link


def test_the_coverage_table_is_what_the_profiles_do():
    from tests.coverage import table

    text = README.read_text()
    shown = text.split("<!-- coverage-table: start -->\n")[1].split("\n<!-- coverage-table: end -->")[0]
    assert shown == table(), "regenerate it with: python -m tests.coverage"


def test_the_coverage_table_has_a_row_for_every_key_of_litellms_message_types():
    # Every key and content-part type litellm 1.110.2 (as 1.106.2) declares for a message, read from its own
    # types.
    import typing

    from litellm.types.llms import openai as types

    from tests.coverage import ROWS

    keys: set[str] = set()
    for message_type in typing.get_args(types.AllMessageValues):
        keys |= set(typing.get_type_hints(message_type)) - {"role", "content"}
    parts = set(types.ValidChatCompletionMessageContentTypes)
    described = " ".join(row.key for row in ROWS)
    missing = sorted(k for k in keys | parts if k not in described)
    assert missing == [], missing


def _section_blocks(heading: str) -> list[str]:
    section = README.read_text().split(f"### {heading}\n", 1)[1].split("\n### ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.DOTALL)


@pytest.mark.parametrize("library", ["langchain", "pydantic-ai"])
def test_the_coming_from_examples_run_as_written(library):
    blocks = _section_blocks("Coming from LangChain / pydantic-ai")
    assert len(blocks) == 2
    code = blocks[0] if library == "langchain" else blocks[1]
    assert len(code.strip().splitlines()) <= 14  # about ten lines each
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    conversation = namespace["conversation"]
    if library == "langchain":
        assert [m.role for m in conversation] == ["system", "user", "assistant", "tool"]
        assert conversation[2].tool_calls[0].parse_arguments() == {"a": 3, "b": 12}
    else:
        assert [m.role for m in conversation] == ["user", "assistant", "tool"]
        assert "No user 'John'" in conversation[2].content
