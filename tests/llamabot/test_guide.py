"""The guide's page on llamabot (docs/guide/llamabot.md) runs with llamabot installed: its ``python`` blocks
in order, in one namespace, as a reader goes through the page, with litellm's providers pointed at a
stand-in OpenAI that checks the tool-call protocol, whose model adds with the add tool
(tests/llamabot/_models.arithmetic). tests/docs runs every other page of the site and leaves this one here
(``RUN_ELSEWHERE``): the main environment cannot install llamabot beside the newest litellm."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.llamabot._checking import CheckingOpenAIRoute
from tests.llamabot._models import arithmetic
from tests.llamabot._shared import LLAMABOT_WARNINGS, MISSING

pytest.importorskip("llamabot", reason=MISSING)
from messages.testing import StandInServer
from tests.docs.test_examples import RUN_ELSEWHERE, point_providers_at

pytestmark = [pytest.mark.litellm, *LLAMABOT_WARNINGS]

PAGE = Path(__file__).resolve().parents[2] / "docs/guide/llamabot.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def python_blocks(page: Path) -> list[str]:
    """The page's ``python`` blocks as its Markdown source has them, in order."""
    return _BLOCK.findall(page.read_text(encoding="utf-8"))


def test_the_page_is_left_to_this_test_by_the_docs_tests():
    assert "guide/llamabot/" in RUN_ELSEWHERE
    assert len(python_blocks(PAGE)) >= 6


def test_the_python_blocks_of_the_llamabot_page_run(litellm, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with StandInServer(arithmetic, routes=[CheckingOpenAIRoute()]) as server:
        point_providers_at(server, monkeypatch)
        namespace: dict = {"__name__": "__docs__"}
        for number, code in enumerate(python_blocks(PAGE), 1):
            exec(compile(code, f"docs/guide/llamabot.md, python block {number}", "exec"), namespace)
