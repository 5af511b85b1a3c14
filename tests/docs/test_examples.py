"""Every Python block of the README and of every page of the documentation site runs, as written.

A page's ``python`` blocks run in order, in one namespace (a later block goes on from an earlier one, as a
reader does), in a folder of their own, with litellm's providers pointed at a loopback stand-in
(``messages.testing.StandInServer``) through the environment, as a bot would be pointed at the real ones:
the code names no test server. The stand-in's model adds two numbers with the first tool it is given
when asked "What is x + y?", reports a tool's result, and otherwise says hello. A block that shows a
result says it with an ``assert``, so that what the page claims is checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from messages import AIMessage, ToolCall, ToolMessage, load_messages
from messages.testing import StandInServer

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


RUN_ELSEWHERE = {
    "docs/guide/llamabot.md": "tests/llamabot/test_guide.py runs it, with llamabot installed beside it",
}
"""Pages whose blocks need a framework that this environment does not install: another test runs them."""


def pages() -> list[Path]:
    """The README and every Markdown page of docs/."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def python_blocks(page: Path) -> list[str]:
    """The ``python`` blocks of a page, in order."""
    return _BLOCK.findall(page.read_text(encoding="utf-8"))


def stand_in_model(body: dict) -> AIMessage:
    """The stand-in's model: "What is 2 + 40?" calls the first tool with a=2, b=40; a tool result is
    reported ("The answer is 42."); anything else gets a greeting."""
    conversation = load_messages(body["messages"])
    last = conversation[-1]
    if isinstance(last, ToolMessage):
        return AIMessage(content=f"The answer is {last.content}.")
    numbers = re.findall(r"\d+", last.text if hasattr(last, "text") else str(last.content))
    tools = body.get("tools") or []
    if tools and len(numbers) >= 2:
        name = tools[0]["function"]["name"]
        arguments = {"a": int(numbers[0]), "b": int(numbers[1])}
        return AIMessage(tool_calls=[ToolCall(id="call_add", name=name, arguments=arguments)])
    return AIMessage(content="Hello from the stand-in.")


def test_the_block_reader_reads_blocks(tmp_path):
    page = tmp_path / "page.txt"
    page.write_text("text\n\n```python\nx = 1\n```\n\n```text\nnot code\n```\n\n```python\ny = x + 1\n```\n")
    assert python_blocks(page) == ["x = 1\n", "y = x + 1\n"]


def test_every_page_with_code_is_collected():
    with_code = [p.relative_to(ROOT).as_posix() for p in pages() if python_blocks(p)]
    assert "README.md" in with_code
    assert "docs/getting-started.md" in with_code


@pytest.mark.litellm
@pytest.mark.parametrize(
    "page",
    [p for p in pages() if python_blocks(p) and p.relative_to(ROOT).as_posix() not in RUN_ELSEWHERE],
    ids=lambda p: p.relative_to(ROOT).as_posix(),
)
def test_the_python_blocks_of_the_page_run(page, litellm, tmp_path, monkeypatch):
    run_blocks(page, stand_in_model, tmp_path, monkeypatch)


def run_blocks(page: Path, model: Callable[[dict], AIMessage], folder: Path, monkeypatch) -> None:
    """Run the page's blocks in order in one namespace, in ``folder``, with litellm's providers pointed
    at a stand-in whose model is ``model``."""
    monkeypatch.chdir(folder)
    with StandInServer(model) as server:
        for variable, value in {
            "OPENAI_API_KEY": "sk-test",
            "OPENAI_BASE_URL": server.url,
            "OPENAI_API_BASE": server.url,
            "ANTHROPIC_API_KEY": "sk-ant-test",
            "ANTHROPIC_API_BASE": server.url,
            "GEMINI_API_KEY": "test",
            "GEMINI_API_BASE": server.url,
            "MISTRAL_API_KEY": "test",
            "MISTRAL_API_BASE": server.url,
        }.items():
            monkeypatch.setenv(variable, value)
        namespace: dict = {"__name__": "__docs__"}
        for number, code in enumerate(python_blocks(page), 1):
            where = f"{page.relative_to(ROOT)}, python block {number}"
            exec(compile(code, where, "exec"), namespace)
