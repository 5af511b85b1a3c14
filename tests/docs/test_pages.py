"""The guide pages hold what they promise: the getting-started page links every example with the command
that runs it; the profiles page's coverage table is what the profiles do; the converters', AutoGen's and
Agent Framework's examples build what they say (every block also runs in tests/docs/test_examples.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROFILES_PAGE = ROOT / "docs/guide/profiles.md"


def _blocks(page: str) -> list[str]:
    text = (ROOT / page).read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, re.DOTALL | re.MULTILINE)


def test_getting_started_links_every_example_and_every_link_exists():
    text = (ROOT / "docs/getting-started.md").read_text(encoding="utf-8")
    linked = re.findall(r"\]\(\.\./(examples/[^)#\s]+)\)", text)
    assert linked, "the page links no example"
    missing = [link for link in linked if not (ROOT / link).is_file()]
    assert missing == [], "the page links examples that do not exist"
    examples = {
        f"examples/{p.name}"
        for p in (ROOT / "examples").iterdir()
        if p.is_file() and not p.name.startswith(".") and p.suffix != ".pyc"
    }
    assert examples - set(linked) == set(), "examples the page does not link"
    section = text.split("## Examples", 1)[1].split("\n## ", 1)[0]
    for link in linked:
        assert f"](../{link})" in section
        assert f"python {link}" in section, link


def test_the_coverage_table_is_what_the_profiles_do():
    from tests.coverage import table

    text = PROFILES_PAGE.read_text(encoding="utf-8")
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


def test_the_inside_autogen_example_builds_the_agent_as_written():
    pytest.importorskip("autogen_agentchat")
    (code,) = _blocks("docs/guide/autogen.md")

    namespace: dict = {}
    exec(compile(code, "docs/guide/autogen.md", "exec"), namespace)
    agent = namespace["agent"]
    from messages.integrations.autogen import BufferedChatCompletionContext, LiteLLMChatCompletionClient

    assert isinstance(agent.model_context, BufferedChatCompletionContext)
    assert agent.model_context.buffer_size == 20
    assert isinstance(agent._model_client, LiteLLMChatCompletionClient)
    assert agent._model_client.model == "gemini/gemini-2.5-flash"


def test_the_readme_the_front_page_and_getting_started_show_one_bot():
    # The 20-line bot is shown three times: on GitHub, on the site's front page, in getting started. The
    # README's runs in tests/test_readme.py, the site's as blocks of the built site: they must be one.
    readme = re.search(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    assert readme is not None
    bots = {page: _blocks(page)[0] for page in ("docs/index.md", "docs/getting-started.md")}
    assert set(bots.values()) == {readme.group(1)}
