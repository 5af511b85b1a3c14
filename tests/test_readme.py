"""The README is a front page: its 20-line bot runs as written, against a stand-in provider; it stays short;
it links a page of the site per guide page, and every link in it resolves."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from messages import AIMessage, ToolCall, ToolMessage, load_messages
from messages.quirks import DOCS_URL
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


README_LINES = 200
"""About how long the front page may be (issue 32): the guide lives on the documentation site."""

_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_REFERENCE = re.compile(r"^\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
_USED_REFERENCE = re.compile(r"\]\[([^\]]+)\]")


def readme_links() -> list[str]:
    """Every Markdown link target of the README: inline (``[text](target)``) and reference definitions
    (``[name]: target``)."""
    text = README.read_text(encoding="utf-8")
    return _LINK.findall(text) + _REFERENCE.findall(text)


def test_every_reference_link_of_the_readme_is_defined():
    text = README.read_text(encoding="utf-8")
    defined = set(re.findall(r"^\[([^\]]+)\]:", text, re.MULTILINE))
    used = set(_USED_REFERENCE.findall(text))
    assert used
    assert used - defined == set()


def test_the_readme_is_a_front_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_LINES
    for heading in ("## Set up", "## Extras", "## The guide", "## What it does that others do not"):
        assert heading in text, heading
    # A link per guide page of the site, each to its page there.
    guide = sorted(p.stem for p in (ROOT / "docs" / "guide").glob("*.md"))
    assert len(guide) >= 10
    linked = set(readme_links())
    missing = [page for page in guide if f"{DOCS_URL}guide/{page}/" not in linked]
    assert missing == []


@pytest.fixture(scope="session")
def site(tmp_path_factory, worker_id):
    """The built documentation site (tests/docs/conftest.py)."""
    from tests.docs.conftest import site_folder

    return site_folder(tmp_path_factory, worker_id)


def test_every_link_in_the_readme_resolves(site):
    from tests.docs.test_site import assert_resolves

    links = readme_links()
    assert len(links) > 15
    for link in links:
        if link.startswith(DOCS_URL):
            assert_resolves(link, site)  # a page (and its anchor) of the built site
        else:
            # Nothing else but the repository's own files: a link the suite cannot follow offline is out.
            assert "://" not in link, f"{link}: only the documentation site and the repository's files"
            assert (ROOT / link.split("#")[0]).exists(), link
