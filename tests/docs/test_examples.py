"""Every Python block of the documentation site runs alone, as a reader who copies it would run it.

The blocks are read from the built site (every page: the guide, the front page, the API reference's
docstring examples), as the copy button copies them. Each runs in a fresh namespace, in a fresh folder of
its own, with litellm's providers pointed at a loopback stand-in (``messages.testing.StandInServer``)
through the environment, as a bot would be pointed at the real ones: the code names no test server. A
block whose first line is ``# Continues the block above.`` (``tests.docs.pages.CONTINUES``) runs after the
one before it, in one namespace, as the pair the page says it is.

The stand-in's model adds two numbers with the first tool it is given when asked "What is x + y?",
reports a tool's result, writes a short summary when a summarizer asks for one
(``messages.compaction.LiteLLMSummarizer``'s request), and otherwise says hello. A block that shows a
result says it with an ``assert``, so that what the page claims is checked.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from messages import AIMessage, ToolCall, ToolMessage, from_responses_items, load_messages
from messages.testing import StandInServer
from tests.docs.conftest import site_folder
from tests.docs.pages import CONTINUES, Block, code_blocks, pages

LINE = 88
"""The longest code line the text column shows whole (docs/css/extra.css)."""

SUMMARY_REQUEST = "Write the summary of the conversation above"
"""How the default summarizer's request ends (``messages.compaction.LiteLLMSummarizer``)."""


def stand_in_model(body: dict) -> AIMessage:
    """The stand-in's model (chat completions and the Responses API): "What is 2 + 40?" calls the first
    tool with a=2, b=40; a tool result is reported ("The answer is 42."); a summarizer's request gets a
    short summary; anything else gets a greeting."""
    if "messages" in body:
        conversation = load_messages(body["messages"])
    else:  # the Responses API: input items
        conversation = from_responses_items(body["input"])
    last = conversation[-1]
    if isinstance(last, ToolMessage):
        return AIMessage(content=f"The answer is {last.content}.")
    content = last.content
    text = content if isinstance(content, str) else " ".join(getattr(p, "text", "") for p in content or ())
    if text.startswith(SUMMARY_REQUEST):
        return AIMessage(content="The user and the assistant talked.")
    numbers = re.findall(r"\d+", text)
    tools = body.get("tools") or []
    if tools and len(numbers) >= 2:
        name = tools[0]["function"]["name"]
        arguments = {"a": int(numbers[0]), "b": int(numbers[1])}
        return AIMessage(tool_calls=[ToolCall(id="call_add", name=name, arguments=arguments)])
    return AIMessage(content="Hello from the stand-in.")


RUN_ELSEWHERE = {
    "guide/llamabot/": "tests/llamabot/test_guide.py runs it, with llamabot installed beside it",
    "reference/messages.integrations.llamabot/": "its examples need llamabot (tests/llamabot runs them)",
}
"""Site pages whose blocks need a framework this environment does not install: another test runs them."""


def python_blocks(site: Path) -> list[Block]:
    """The site's Python blocks that are code to run (signatures aside), but for ``RUN_ELSEWHERE``'s pages."""
    return [
        block
        for page in pages(site)
        for block in code_blocks(site, page)
        if block.language == "python" and not block.signature and block.page not in RUN_ELSEWHERE
    ]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One test per Python block of the built site, given with the blocks it continues."""
    if "blocks" not in metafunc.fixturenames:
        return
    # The blocks are known only once the site is built: the test command's, or one built now (once for
    # all xdist workers, as the `site` fixture does).
    worker = os.environ.get("PYTEST_XDIST_WORKER", "master")
    site = site_folder(metafunc.config._tmp_path_factory, worker)  # type: ignore[attr-defined]
    found = python_blocks(site)
    metafunc.parametrize("blocks", [chain(block, found) for block in found], ids=[str(b) for b in found])


def chain(block: Block, blocks: list[Block]) -> list[Block]:
    """The block, after the blocks it continues (each ``CONTINUES`` block after the one before it)."""
    same_page = [b for b in blocks if b.page == block.page and b.language == block.language]
    position = same_page.index(block)
    start = position
    while same_page[start].continues:
        assert start > 0, f"{block} continues a block, but none is above it"
        start -= 1
    return same_page[start : position + 1]


@pytest.fixture
def offline(litellm, tmp_path, monkeypatch, restored_registry):
    """A fresh folder, and litellm's providers pointed at the stand-in through the environment; the
    profiles a block registers are gone after it."""
    monkeypatch.chdir(tmp_path)
    with StandInServer(stand_in_model) as server:
        point_providers_at(server, monkeypatch)
        yield server


def point_providers_at(server: StandInServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """litellm's providers pointed at ``server`` through the environment, as a bot is pointed at the real
    ones."""
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


def run(blocks: list[Block]) -> None:
    namespace: dict = {"__name__": "__main__"}
    for block in blocks:
        exec(compile(block.code, str(block), "exec"), namespace)


@pytest.mark.litellm
def test_the_python_block_runs_alone(blocks, offline):
    run(blocks)


def test_every_page_with_python_is_run(site):
    with_python = {b.page for b in python_blocks(site)}
    for page in ("", "getting-started/", "guide/threads/", "guide/long-conversations/", "guide/testing/"):
        assert page in with_python, page
    assert any(page.startswith("reference/") for page in with_python)


def test_a_continuing_block_says_so_and_runs_after_the_one_before(tmp_path):
    page = tmp_path / "index.html"
    page.write_text(
        '<article><div class="language-python highlight"><pre><code>x = 1\n</code></pre></div>'
        '<div class="language-text highlight"><pre><code>not code</code></pre></div>'
        f'<div class="language-python highlight"><pre><code>{CONTINUES}\ny = x + 1\n</code></pre></div>'
        '<div class="doc-signature highlight"><pre><code>f(a: int) -&gt; None</code></pre></div></article>'
    )
    blocks = code_blocks(tmp_path, page)
    assert [(b.language, b.number, b.signature) for b in blocks] == [
        ("python", 1, False),
        ("text", 1, False),
        ("python", 2, False),
        ("", 1, True),
    ]
    assert blocks[3].code == "f(a: int) -> None"
    assert [b.number for b in chain(blocks[2], blocks)] == [1, 2]
    namespace: dict = {}
    for block in chain(blocks[2], blocks):
        exec(block.code, namespace)
    assert namespace["y"] == 2


def test_every_code_block_has_a_language_and_fits_the_column(site):
    """A reader copies a block knowing what it is (Python runs; text, JSON and shell blocks say so), and
    sees each line whole: 88 characters at most. The quirk catalog's error texts are quoted verbatim,
    and wrap instead (docs/css/extra.css)."""
    unlabelled, long_lines = [], []
    for page in pages(site):
        for block in code_blocks(site, page):
            if "quirk-error" in block.classes:
                continue
            if not block.language and not block.signature:
                unlabelled.append(f"{block}: {block.code[:60]!r}")
            for line in block.code.splitlines():
                if len(line) > LINE:
                    long_lines.append(f"{block}: {len(line)} characters: {line[:60]!r}...")
    assert unlabelled == []
    assert long_lines == []


def test_the_stand_in_model_answers_each_kind_of_request():
    add = {"type": "function", "function": {"name": "add", "parameters": {}}}
    asked = {"messages": [{"role": "user", "content": "What is 2 + 40?"}], "tools": [add]}
    call = stand_in_model(asked).tool_calls[0]
    assert (call.name, call.parse_arguments()) == ("add", {"a": 2, "b": 40})
    answered = {
        "messages": [
            *asked["messages"],
            {"role": "assistant", "tool_calls": [call.model_dump()]},
            {"role": "tool", "tool_call_id": call.id, "content": "42"},
        ]
    }
    assert stand_in_model(answered).content == "The answer is 42."
    summary = {"messages": [{"role": "user", "content": f"{SUMMARY_REQUEST} now."}]}
    assert stand_in_model(summary).content == "The user and the assistant talked."
    assert stand_in_model({"messages": [{"role": "user", "content": "hi"}]}).content.startswith("Hello")
